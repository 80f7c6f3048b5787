import { TemplateSyntaxError } from './errors';
import { checkTemplate, RENDER_LIMITS, renderTemplate } from './template-engine';

const data = {
  Meta: { EventType: 'push', Headers: { 'x-codehosta-event': 'push' } },
  Payload: {
    repo: { name: 'relay', full_name: 'acme/relay' },
    action: 'opened',
    count: 3,
    commits: [
      { id: 'a1b2c3', message: 'fix: escape <b>tags</b>' },
      { id: 'd4e5f6', message: 'feat: routing' },
    ],
    labels: { bug: 'red', docs: 'blue' },
    tags: ['x', 'y'],
    flag: false,
  },
};

const text = (source: string) => renderTemplate(source, data, 'text');

describe('template syntax', () => {
  test.each([
    ['plain text', 'hello', 'hello'],
    ['meta', '{{ .Meta.EventType }}', 'push'],
    ['payload path', '{{ .Payload.repo.name }}', 'relay'],
    ['Body is Payload', '{{ .Body.repo.full_name }}', 'acme/relay'],
    ['array index', '{{ .Payload.commits.1.id }}', 'd4e5f6'],
    ['missing path renders empty', '[{{ .Payload.nope.deeper.still }}]', '[]'],
    ['missing root field renders empty', '[{{ .Meta.Nope }}]', '[]'],
    ['pipeline', '{{ .Payload.repo.name | upper }}', 'RELAY'],
    ['call form', '{{ upper .Payload.repo.name }}', 'RELAY'],
    ['pipeline with Go-style args', '{{ .Payload.commits.0.message | truncate 10 }}', 'fix: esca…'],
    ['pipeline with call args', '{{ .Payload.commits.0.message | truncate(10, "...") }}', 'fix: es...'],
    ['call form with args', '{{ truncate .Payload.repo.full_name 5 }}', 'acme…'],
    ['chained pipeline', '{{ .Payload.nope | default "n/a" | upper }}', 'N/A'],
    ['nested call in parentheses', '{{ upper (default .Payload.nope "none") }}', 'NONE'],
    ['string literal with escapes', '{{ "a\\"b" }}', 'a"b'],
    ['single-quoted literal', "{{ 'it\\'s' }}", "it's"],
    ['arithmetic', '{{ .Payload.count * 2 + 1 }}', '7'],
    ['concatenation', '{{ .Payload.repo.name ~ "@" ~ .Payload.count }}', 'relay@3'],
    ['object prints as JSON', '{{ .Payload.tags }}', '["x","y"]'],
    ['boolean false prints', '{{ .Payload.flag }}', 'false'],
    ['header via index', '{{ index .Meta.Headers "x-codehosta-event" }}', 'push'],
    ['dot is the whole data outside loops', '{{ len . }}', '3'],
    ['comment dropped', 'a{# note #}b', 'ab'],
    ['braces in text are literal', '{"a": {{ .Payload.count }}}', '{"a": 3}'],
    ['whitespace trimming', 'a  {{- .Payload.count -}}  b', 'a3b'],
  ])('%s', (_name, source, expected) => {
    expect(text(source)).toBe(expected);
  });

  test.each([
    ['Go if', '{{ if .Payload.action }}yes{{ end }}', 'yes'],
    ['Go if with eq', '{{ if eq .Payload.action "opened" }}open{{ else }}other{{ end }}', 'open'],
    ['Go else if', '{{ if eq .Payload.action "closed" }}c{{ else if ne .Payload.count 0 }}n{{ else }}e{{ end }}', 'n'],
    ['infix comparison', '{{ if .Payload.count >= 3 and not .Payload.flag }}ok{{ end }}', 'ok'],
    ['Go and/or prefix', '{{ if and .Payload.action (or .Payload.flag .Payload.count) }}ok{{ end }}', 'ok'],
    ['lt/gt', '{{ if lt .Payload.count 5 }}small{{ end }}{{ if gt .Payload.count 5 }}big{{ end }}', 'small'],
    ['missing path is falsy', '{{ if .Payload.nope }}yes{{ else }}no{{ end }}', 'no'],
    ['range rebinds the dot', '{{ range .Payload.commits }}[{{ .id }}]{{ end }}', '[a1b2c3][d4e5f6]'],
    ['range keeps roots', '{{ range .Payload.commits }}{{ .Payload.repo.name }}:{{ .id }} {{ end }}', 'relay:a1b2c3 relay:d4e5f6 '],
    ['range with variable', '{{ range $c := .Payload.commits }}{{ $c.id }},{{ end }}', 'a1b2c3,d4e5f6,'],
    ['range with index', '{{ range $i, $c := .Payload.commits }}{{ $i }}={{ $c.id }} {{ end }}', '0=a1b2c3 1=d4e5f6 '],
    ['range over an object', '{{ range $k, $v := .Payload.labels }}{{ $k }}:{{ $v }} {{ end }}', 'bug:red docs:blue '],
    ['range else when empty', '{{ range .Payload.nope }}x{{ else }}none{{ end }}', 'none'],
    ['nunjucks for with loop', '{% for c in .Payload.commits %}{{ loop.index }}.{{ c.id }} {% endfor %}', '1.a1b2c3 2.d4e5f6 '],
    ['nunjucks if/elif/else', '{% if .Payload.flag %}a{% elif .Payload.count == 3 %}b{% else %}c{% endif %}', 'b'],
    ['nunjucks set', '{% set n = .Payload.count * 10 %}{{ n }}', '30'],
    ['nested loops', '{{ range .Payload.tags }}{{ range $.Payload.tags }}{{ . }}{{ end }}|{{ end }}', 'xy|xy|'],
  ])('control flow: %s', (_name, source, expected) => {
    expect(text(source)).toBe(expected);
  });

  test.each([
    ['unclosed if', 'a\n{{ if .Payload.x }}', 2, /never closed/],
    ['unknown root', 'line1\nline2 {{ .payload.x }}', 2, /unknown field "\.payload\.x"/],
    ['unknown function in pipeline', '{{ .Payload.x | shout }}', 1, /unknown function "shout"/],
    ['unknown function in call form', '\n\n{{ shout .Payload.x }}', 3, /unknown function or name "shout"/],
    ['stray end', '{{ end }}', 1, /without an open/],
    ['endif closing a for', '{% for c in .Payload.commits %}{% endif %}', 1, /closes the for/],
    ['unsupported nunjucks tag', '{% include "x.html" %}', 1, /unsupported tag "include"/],
    ['unterminated tag', 'x\n{{ .Payload.a', 2, /never closed/],
    ['unterminated string', '{{ "abc }}', 1, /unterminated string|never closed/],
    ['assignment instead of comparison', '{{ if .Payload.a = 1 }}x{{ end }}', 1, /use "=="/],
    ['function without value', '{{ upper }}', 1, /needs a value/],
    ['eq with one argument', '{{ if eq .Payload.a }}x{{ end }}', 1, /takes two values/],
    ['trailing tokens', '{{ .Payload.a .Payload.b }}', 1, /after the expression/],
    ['bad character', '{{ .Payload.a ; }}', 1, /unexpected character/],
  ])('rejects %s with the line', (_name, source, line, message) => {
    expect.assertions(3);
    try {
      checkTemplate(source);
    } catch (err) {
      expect(err).toBeInstanceOf(TemplateSyntaxError);
      expect((err as TemplateSyntaxError).line).toBe(line);
      expect((err as Error).message).toMatch(message);
    }
  });

  test.each([
    ['the classic nunjucks escape', '{{ range.constructor("return process")() }}'],
    ['constructor through a path', '{{ .Payload.constructor.constructor("return process")() }}'],
    ['raw nunjucks global', '{{ cycler }}'],
    ['prototype via index', '{{ index .Payload "__proto__" | json }}'],
  ])('never reaches JavaScript internals: %s', (_name, source) => {
    let output = '';
    try {
      output = text(source);
    } catch (err) {
      expect(err).toBeInstanceOf(TemplateSyntaxError);
      return;
    }
    expect(output).toBe('');
  });

  test('html mode escapes values but not the template text, and html_escape is not escaped twice', () => {
    const html = renderTemplate('<b>{{ .Payload.commits.0.message }}</b> {{ html_escape .Payload.commits.0.message }}', data, 'html');
    expect(html).toBe('<b>fix: escape &lt;b&gt;tags&lt;/b&gt;</b> fix: escape &lt;b&gt;tags&lt;/b&gt;');
  });

  test('text mode prints values verbatim', () => {
    expect(text('{{ .Payload.commits.0.message }}')).toBe('fix: escape <b>tags</b>');
  });

  test('runtime and compile errors keep the user line across multi-line text', () => {
    expect(() => checkTemplate('{ first }\n{ second }\n{{ .Payload.x |')).toThrow(
      expect.objectContaining({ line: 3 }) as unknown as Error,
    );
  });

  describe('render limits: a template cannot stall a worker', () => {
    const big = { Meta: {}, Payload: { items: Array.from({ length: 5000 }, (_, i) => i) } };

    test('a loop takes at most MAX_LOOP_ITEMS items', () => {
      expect(renderTemplate('{{ range .Payload.items }}x{{ end }}', big, 'text')).toHaveLength(RENDER_LIMITS.MAX_LOOP_ITEMS);
    });

    test('nested loops stop at MAX_ITERATIONS in total', () => {
      const out = renderTemplate('{{ range .Payload.items }}{{ range $.Payload.items }}x{{ end }}{{ end }}', big, 'text');
      expect(out.length).toBe(RENDER_LIMITS.MAX_ITERATIONS - RENDER_LIMITS.MAX_LOOP_ITEMS);
    });

    test('output stops growing at MAX_OUTPUT characters', () => {
      const data = { Meta: {}, Payload: { items: Array.from({ length: 500 }, () => 'y'.repeat(1000)) } };
      const out = renderTemplate('{{ range .Payload.items }}{{ . }}-{{ end }}', data, 'text');
      expect(out.length).toBe(RENDER_LIMITS.MAX_OUTPUT);
    });

    test('a render running too long fails with a clear message', () => {
      const huge = { Meta: {}, Payload: { items: Array.from({ length: 1000 }, () => 'z'.repeat(100)), blob: Array.from({ length: 20000 }, (_, i) => ({ i, s: 'w'.repeat(40) })) } };
      expect(() => renderTemplate('{{ range .Payload.items }}{% set x = $.Payload.blob | json %}{{ end }}', huge, 'text')).toThrow(
        /rendering took longer than 250 ms/,
      );
    });

    test('limits are per render', () => {
      for (let i = 0; i < 3; i++) expect(renderTemplate('{{ range .Payload.items }}x{{ end }}', big, 'text')).toHaveLength(RENDER_LIMITS.MAX_LOOP_ITEMS);
    });
  });
});
