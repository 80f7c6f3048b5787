import fs from 'node:fs';
import path from 'node:path';
import { GOLDEN_CASES, metaFor } from './golden-fixtures';
import { type ChatPlatform, renderMessage, TemplateRenderError } from './index';
import { validateTemplateConfig } from '../templates/template-config';

const meta = metaFor('push');
const render = (platform: ChatPlatform, templateConfig: Record<string, unknown> | null, payload: unknown = { a: 1 }) =>
  renderMessage({ platform, templateConfig, payload, meta });

describe('golden outputs', () => {
  test.each(GOLDEN_CASES)('$name', ({ name, eventType, payload, template }) => {
    if (template) expect(validateTemplateConfig(template)).toEqual([]);
    const actual = Object.fromEntries(
      (['chat_a', 'chat_b', 'chat_c'] as const).map((platform) => [
        platform,
        renderMessage({ platform, templateConfig: template, payload, meta: metaFor(eventType) }),
      ]),
    );
    const file = path.join(__dirname, '__golden__', `${name}.json`);
    if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, JSON.stringify(actual, null, 2) + '\n');
    expect(actual).toEqual(JSON.parse(fs.readFileSync(file, 'utf8')));
  });
});

describe('config versions', () => {
  test('v1 applies to every platform', () => {
    const config = { title: 'T {{ .Payload.a }}' };
    expect(render('chat_b', config)).toEqual({ embeds: [{ title: 'T 1' }] });
    expect(render('chat_a', config)).toMatchObject({ attachments: [{ title: 'T 1' }] });
    expect(render('chat_c', config)).toEqual({ text: '<b>T 1</b>', parse_mode: 'HTML' });
  });

  test('v2 picks the platform variant, else default', () => {
    const config = { version: 2, platforms: { chat_b: { title: 'B' }, default: { title: 'D' } } };
    expect(render('chat_b', config)).toEqual({ embeds: [{ title: 'B' }] });
    expect(render('chat_c', config)).toEqual({ text: '<b>D</b>', parse_mode: 'HTML' });
  });

  test('v2 without the platform nor default falls back to the default message', () => {
    const out = render('chat_c', { version: 2, platforms: { chat_b: { title: 'B' } } });
    expect(out.text).toContain('<b>push</b>');
  });

  test.each([null, undefined, {}])('no template (%p) gives the readable default message', (config) => {
    const out = renderMessage({ platform: 'chat_b', templateConfig: config, payload: { message: 'Hello', repo: { name: 'relay' }, n: 2 }, meta });
    expect(out).toEqual({
      embeds: [
        {
          title: 'push',
          description: 'Hello',
          fields: [
            { name: 'repo', value: 'relay', inline: true },
            { name: 'n', value: '2', inline: true },
          ],
          footer: { text: 'via acme-hooks' },
          timestamp: '2024-03-05T07:08:09.000Z',
        },
      ],
    });
  });

  test('default message of a non-object payload shows it as JSON', () => {
    const out = render('chat_b', null, [1, 2]);
    expect((out.embeds as Array<{ description: string }>)[0].description).toBe('```json\n[1,2]\n```');
  });
});

describe('chat_b embeds', () => {
  test('every embed key', () => {
    const out = render('chat_b', {
      content: 'c {{ .Payload.a }}',
      title: 't',
      url: 'https://x.example/{{ .Payload.a }}',
      description: 'd',
      color: 255,
      fields: [{ name: 'n', value: 'v', inline: true }, { name: 'n2', value: 'v2' }],
      footer: 'f',
      thumbnail: 'https://img.example/a.png',
      author: 'au',
      timestamp: true,
    });
    expect(out).toEqual({
      content: 'c 1',
      allowed_mentions: { parse: ['users', 'roles'] },
      embeds: [
        {
          title: 't',
          url: 'https://x.example/1',
          description: 'd',
          color: 255,
          fields: [{ name: 'n', value: 'v', inline: true }, { name: 'n2', value: 'v2' }],
          footer: { text: 'f' },
          thumbnail: { url: 'https://img.example/a.png' },
          author: { name: 'au' },
          timestamp: '2024-03-05T07:08:09.000Z',
        },
      ],
    });
  });

  test.each<[string, unknown, number | undefined]>([
    ['decimal', 16711680, 16711680],
    ['hex string', '#00ff00', 65280],
    ['0x string', '0x0000ff', 255],
    ['templated', '{{ if .Payload.a }}#ff0000{{ else }}#00ff00{{ end }}', 16711680],
    ['invalid', 'red', undefined],
    ['out of range', 99999999, undefined],
  ])('color: %s', (_name, color, expected) => {
    const embed = (render('chat_b', { title: 't', color }).embeds as Array<Record<string, unknown>>)[0];
    expect(embed.color).toBe(expected);
  });

  test.each([
    ['title', 256],
    ['description', 4096],
    ['footer', 2048],
    ['author', 256],
  ])('%s is cut at %i characters with an ellipsis', (key, limit) => {
    const out = render('chat_b', { [key]: '{{ .Payload.long }}' }, { long: 'x'.repeat(limit + 50) });
    const embed = (out.embeds as Array<Record<string, unknown>>)[0];
    const value = key === 'footer' ? (embed.footer as { text: string }).text : key === 'author' ? (embed.author as { name: string }).name : (embed[key] as string);
    expect(Array.from(value)).toHaveLength(limit);
    expect(value.endsWith('…')).toBe(true);
  });

  test('field names and values are cut, and fields beyond 25 dropped', () => {
    const fields = Array.from({ length: 30 }, (_, i) => ({ name: `n${i} {{ .Payload.long }}`, value: '{{ .Payload.long }}' }));
    const out = render('chat_b', { fields }, { long: 'y'.repeat(1100) });
    const rendered = (out.embeds as Array<{ fields: Array<{ name: string; value: string }> }>)[0].fields;
    expect(rendered.length).toBeLessThanOrEqual(25);
    for (const f of rendered) {
      expect(Array.from(f.name).length).toBeLessThanOrEqual(256);
      expect(Array.from(f.value).length).toBeLessThanOrEqual(1024);
    }
  });

  test('exactly 25 short fields are kept; a 26th is dropped', () => {
    const fields = Array.from({ length: 26 }, (_, i) => ({ name: `n${i}`, value: 'v' }));
    const rendered = (render('chat_b', { fields }).embeds as Array<{ fields: unknown[] }>)[0].fields;
    expect(rendered).toHaveLength(25);
  });

  test('the whole embed stays within 6000 characters', () => {
    const fields = Array.from({ length: 25 }, () => ({ name: '{{ .Payload.s }}', value: '{{ .Payload.l }}' }));
    const out = render('chat_b', { title: '{{ .Payload.l }}', description: '{{ .Payload.l }}{{ .Payload.l }}', fields }, { s: 'n'.repeat(300), l: 'v'.repeat(2000) });
    const e = (out.embeds as Array<{ title: string; description: string; fields: Array<{ name: string; value: string }> }>)[0];
    const total = [e.title, e.description, ...e.fields.flatMap((f) => [f.name, f.value])].join('').length;
    expect(total).toBeLessThanOrEqual(6000);
  });

  test('fields rendering to nothing are dropped; a half-empty field gets a zero-width space', () => {
    const out = render('chat_b', { fields: [{ name: '{{ .Payload.nope }}', value: '{{ .Payload.nope }}' }, { name: 'n', value: '{{ .Payload.nope }}' }] });
    expect((out.embeds as Array<{ fields: unknown[] }>)[0].fields).toEqual([{ name: 'n', value: '\u200b' }]);
  });

  test('non-http thumbnail and url are left out', () => {
    const out = render('chat_b', { title: 't', thumbnail: 'javascript:x', url: '{{ .Payload.nope }}' });
    expect(out).toEqual({ embeds: [{ title: 't' }] });
  });

  test('content alone sends no embed', () => {
    expect(render('chat_b', { content: 'just text' })).toEqual({ content: 'just text', embeds: [], allowed_mentions: { parse: ['users', 'roles'] } });
  });

  test('@everyone from the payload never pings; written in the template it does', () => {
    const fromPayload = render('chat_b', { content: '{{ .Payload.t }}' }, { t: '@everyone look' });
    expect(fromPayload).toMatchObject({ content: '@everyone look', allowed_mentions: { parse: ['users', 'roles'] } });
    const fromTemplate = render('chat_b', { content: '@here deploy of {{ .Payload.t }} failed' }, { t: 'x' });
    expect(fromTemplate.allowed_mentions).toEqual({ parse: ['users', 'roles', 'everyone'] });
  });

  test('an embed rendering to nothing falls back to the default message', () => {
    const out = render('chat_b', { title: '{{ .Payload.nope }}' });
    expect((out.embeds as Array<{ title: string }>)[0].title).toBe('push');
  });

  test('payload text is not escaped for chat_b', () => {
    const out = render('chat_b', { title: '{{ .Payload.t }}' }, { t: '<b>&' });
    expect((out.embeds as Array<{ title: string }>)[0].title).toBe('<b>&');
  });
});

describe('chat_a', () => {
  test('slack_blocks are rendered string by string; keys and non-strings stay', () => {
    const out = render('chat_a', {
      slack_blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: '*{{ .Payload.a }}*' }, accessory: { type: 'button', value: '{{ .Payload.a }}', text: { type: 'plain_text', text: 'Go' } } },
        { type: 'divider' },
        { type: 'section', fields: [{ type: 'mrkdwn', text: '{{ .Payload.a | json }}' }], block_id: 'b{{ .Payload.a }}' },
      ],
    });
    expect(out).toEqual({
      text: 'New push event',
      blocks: [
        { type: 'section', text: { type: 'mrkdwn', text: '*1*' }, accessory: { type: 'button', value: '1', text: { type: 'plain_text', text: 'Go' } } },
        { type: 'divider' },
        { type: 'section', fields: [{ type: 'mrkdwn', text: '1' }], block_id: 'b1' },
      ],
    });
  });

  test('block text limits and empty text objects', () => {
    const out = render('chat_a', {
      text: 'fallback',
      slack_blocks: [
        { type: 'header', text: { type: 'plain_text', text: '{{ .Payload.long }}' } },
        { type: 'section', text: { type: 'mrkdwn', text: '{{ .Payload.long }}{{ .Payload.long }}' } },
        { type: 'section', text: { type: 'mrkdwn', text: '{{ .Payload.nope }}' } },
      ],
    }, { long: 'z'.repeat(2000) });
    const blocks = out.blocks as Array<{ text: { text: string } }>;
    expect(out.text).toBe('fallback');
    expect(Array.from(blocks[0].text.text)).toHaveLength(150);
    expect(Array.from(blocks[1].text.text)).toHaveLength(3000);
    expect(blocks[2].text.text).toBe('\u200b');
  });

  test('more than 50 blocks are cut to 50', () => {
    const blocks = Array.from({ length: 60 }, () => ({ type: 'divider' }));
    expect((render('chat_a', { slack_blocks: blocks }).blocks as unknown[]).length).toBe(50);
  });

  test('without blocks the embed becomes an attachment, markdown translated and escaped', () => {
    const out = render('chat_a', {
      title: '{{ .Payload.t }}',
      url: 'https://x.example',
      description: '**bold** *it* ~~gone~~ [link](https://l.example) `<code>` {{ .Payload.t }}',
      color: 0x00ff00,
      fields: [{ name: 'F', value: '__u__', inline: true }],
      footer: 'foot',
      thumbnail: 'https://img.example/t.png',
      author: 'me',
      timestamp: true,
    }, { t: '<!channel> & co' });
    expect(out).toEqual({
      text: '',
      attachments: [
        {
          fallback: '&lt;!channel&gt; &amp; co',
          color: '#00ff00',
          author_name: 'me',
          title: '&lt;!channel&gt; &amp; co',
          title_link: 'https://x.example',
          text: '*bold* _it_ ~gone~ <https://l.example|link> `&lt;code&gt;` &lt;!channel&gt; &amp; co',
          fields: [{ title: 'F', value: '_u_', short: true }],
          thumb_url: 'https://img.example/t.png',
          footer: 'foot',
          ts: 1709622489,
          mrkdwn_in: ['text', 'fields'],
        },
      ],
    });
  });
});

describe('chat_c', () => {
  test('telegram_html: payload escaped, template tags kept, others escaped', () => {
    const out = render('chat_c', { telegram_html: '<b>{{ .Payload.t }}</b> <div>x</div>' }, { t: '<i>x</i> & <script>' });
    expect(out).toEqual({ text: '<b>&lt;i&gt;x&lt;/i&gt; &amp; &lt;script&gt;</b> &lt;div&gt;x&lt;/div&gt;', parse_mode: 'HTML' });
  });

  test('payload cannot break out of an attribute', () => {
    const out = render('chat_c', { telegram_html: '<a href="{{ .Payload.u }}">l</a>' }, { u: 'https://x.example/"onclick="y' });
    expect(out.text).toBe('<a href="https://x.example/&quot;onclick=&quot;y">l</a>');
  });

  test('a javascript: link from the payload is dropped', () => {
    const out = render('chat_c', { telegram_html: '<a href="{{ .Payload.u }}">l</a>' }, { u: 'javascript:alert(1)' });
    expect(out.text).toBe('l');
  });

  test('telegram_html rendering to nothing falls back to the embed', () => {
    const out = render('chat_c', { telegram_html: '{{ .Payload.nope }}', title: 'T' });
    expect(out.text).toBe('<b>T</b>');
  });

  test('embed auto-conversion to HTML', () => {
    const out = render('chat_c', {
      author: 'a<b>',
      title: 'Title & co',
      url: 'https://x.example/?q=1&r=2',
      description: '**b** *i* __u__ ~~s~~ ||sp|| `c<d>` [l](https://l.example/a_b_c)\n> quoted\n```ts\nconst a = 1 < 2;\n```',
      fields: [{ name: 'N', value: 'v' }, { name: 'Multi', value: 'line1\nline2' }],
      footer: 'foot',
      timestamp: true,
    });
    expect(out.text).toBe(
      [
        '<i>a&lt;b&gt;</i>',
        '<b><a href="https://x.example/?q=1&amp;r=2">Title &amp; co</a></b>',
        '',
        '<b>b</b> <i>i</i> <u>u</u> <s>s</s> <tg-spoiler>sp</tg-spoiler> <code>c&lt;d&gt;</code> <a href="https://l.example/a_b_c">l</a>',
        '<blockquote>quoted</blockquote>',
        '<pre><code class="language-ts">const a = 1 &lt; 2;</code></pre>',
        '',
        '<b>N</b>: v',
        '<b>Multi</b>',
        'line1',
        'line2',
        '',
        '<i>foot · 2024-03-05 07:08 UTC</i>',
      ].join('\n'),
    );
  });
});

describe('errors', () => {
  test('a broken template string names its path and line', () => {
    const config = { version: 2, platforms: { chat_b: { fields: [{ name: 'a', value: 'x' }, { name: 'b', value: 'y' }, { name: 'c', value: 'ok\n{{ .Payload.a | nope }}' }] } } };
    expect.assertions(4);
    try {
      render('chat_b', config);
    } catch (err) {
      expect(err).toBeInstanceOf(TemplateRenderError);
      expect((err as TemplateRenderError).code).toBe('template_render_failed');
      expect((err as TemplateRenderError).path).toBe('platforms.chat_b.fields[2].value');
      expect((err as TemplateRenderError).line).toBe(2);
    }
  });

  test('slack block paths', () => {
    expect(() => render('chat_a', { slack_blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '{{ if }}' } }] })).toThrow(
      expect.objectContaining({ path: 'slack_blocks[0].text.text' }) as unknown as Error,
    );
  });
});

describe('fuzz', () => {
  // A small deterministic PRNG so failures reproduce.
  let seed = 42;
  const rand = () => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed / 2147483648;
  };
  const pieces = ['<', '>', '&', '"', "'", '<b>', '</b>', '<script>', '<a href="javascript:x">', '</a>', '&lt;', '&amp;', '&nbsp;', '{{', '}}', '{%', '\n', '*', '_', '`', '```', '[x](https://e.example)', '||', '\u0000', '\uE000', '😀', 'é', 'text', ' '];
  const randomString = () => Array.from({ length: Math.floor(rand() * 12) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
  const randomValue = (depth: number): unknown => {
    const r = rand();
    if (depth > 2 || r < 0.4) return randomString();
    if (r < 0.5) return Math.floor(rand() * 1e6) - 5e5;
    if (r < 0.55) return rand() < 0.5;
    if (r < 0.6) return null;
    if (r < 0.8) return Array.from({ length: Math.floor(rand() * 4) }, () => randomValue(depth + 1));
    return Object.fromEntries(Array.from({ length: Math.floor(rand() * 5) }, () => [randomString() || 'k', randomValue(depth + 1)]));
  };
  const templates = [
    null,
    { telegram_html: '<b>{{ .Payload.a }}</b> <i>{{ .Payload.b }}</i> <a href="{{ .Payload.c }}">{{ .Payload.d }}</a> {{ .Payload }}' },
    { title: '{{ .Payload.a }}', description: '{{ .Payload.b }} {{ .Payload | json }}', fields: [{ name: '{{ .Payload.c }}', value: '{{ .Payload.d }}' }], footer: '{{ .Payload.a }}' },
  ];
  const ALLOWED_TAG = /<\/?(b|i|u|s|a|code|pre|blockquote|tg-spoiler)( href="[^"<>]*"| class="language-[\w+#-]+")?>/g;

  test('random payloads never crash rendering and never let payload HTML through to chat_c', () => {
    for (let i = 0; i < 400; i++) {
      const payload = { a: randomValue(0), b: randomValue(0), c: randomValue(0), d: randomValue(0), ...(rand() < 0.5 ? { x: randomValue(0) } : {}) };
      for (const templateConfig of templates) {
        for (const platform of ['chat_a', 'chat_b', 'chat_c'] as const) {
          const out = renderMessage({ platform, templateConfig, payload, meta });
          expect(JSON.parse(JSON.stringify(out))).toEqual(out);
          if (platform !== 'chat_c') continue;
          const text = out.text as string;
          // Once the tags the template itself may produce are removed, no raw markup is left.
          expect(text.replace(ALLOWED_TAG, '')).not.toMatch(/[<>]/);
          expect(text.replace(ALLOWED_TAG, '')).not.toMatch(/&(?!(lt|gt|amp|quot|#\d+|#x[0-9a-f]+);)/i);
          expect(text).not.toMatch(/href="javascript:/);
          if (templateConfig && 'telegram_html' in templateConfig) {
            // With an HTML template, every tag comes from the template: one <b>, one <i>, at most one link.
            const opening = text.match(/<[a-z][^>]*>/g) ?? [];
            expect(opening.filter((tag) => tag === '<b>')).toHaveLength(1);
            expect(opening.filter((tag) => tag === '<i>')).toHaveLength(1);
            expect(opening.filter((tag) => tag !== '<b>' && tag !== '<i>').every((tag) => tag.startsWith('<a href="'))).toBe(true);
            expect(opening.length).toBeLessThanOrEqual(3);
          }
        }
      }
    }
  });
});
