import { validateTemplateConfig } from './template-config';

describe('validateTemplateConfig', () => {
  test.each<[string, unknown]>([
    ['empty v1', {}],
    ['v1 embed', { title: '{{ .Meta.EventType }}', description: 'x', color: 255, fields: [{ name: 'a', value: '{{ .Payload.a }}', inline: true }], footer: 'f', thumbnail: 'https://x', author: 'a', timestamp: true }],
    ['v1 with version 1', { version: 1, title: 't' }],
    ['v1 with color as hex and templated timestamp', { color: '#ff0000', timestamp: '{{ .Payload.at }}' }],
    ['v2', { version: 2, platforms: { chat_b: { title: 'b' }, chat_a: { slack_blocks: [{ type: 'divider' }] }, chat_c: { telegram_html: '<b>{{ .Payload.x }}</b><br>' }, default: { title: 'd' } } }],
    ['blocks with templates everywhere', { slack_blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '{{ range .Payload.a }}{{ . }}{{ end }}' } }] }],
    ['telegram html with control flow and all tags', { telegram_html: '{{ if .Payload.a }}<a href="{{ .Payload.u }}">x</a>{{ end }}<pre><code class="language-js">y</code></pre><tg-spoiler>s</tg-spoiler>' }],
  ])('valid: %s', (_name, config) => {
    expect(validateTemplateConfig(config)).toEqual([]);
  });

  test.each<[string, unknown, { path: string; message: RegExp; line?: number }]>([
    ['not an object', 'title', { path: '', message: /must be an object/ }],
    ['array', [], { path: '', message: /must be an object/ }],
    ['bad version', { version: 3 }, { path: 'version', message: /1 \(flat\) or 2/ }],
    ['unknown key (typo)', { titel: 'x' }, { path: 'titel', message: /unknown key/ }],
    ['syntax error with line', { description: 'a\nb\n{{ .Payload.x | nope }}' }, { path: 'description', message: /unknown function/, line: 3 }],
    ['non-string template', { title: 5 }, { path: 'title', message: /string/ }],
    ['field syntax error', { fields: [{ name: 'a', value: 'b' }, { name: 'ok', value: '{{ if .Payload.x }}' }] }, { path: 'fields[1].value', message: /never closed/, line: 1 }],
    ['too many fields', { fields: Array.from({ length: 26 }, () => ({ name: 'a', value: 'b' })) }, { path: 'fields', message: /at most 25/ }],
    ['field without name or value', { fields: [{ inline: true }] }, { path: 'fields[0]', message: /name or a value/ }],
    ['field inline not boolean', { fields: [{ name: 'a', inline: 'yes' }] }, { path: 'fields[0].inline', message: /true or false/ }],
    ['color out of range', { color: -1 }, { path: 'color', message: /0 to 16777215/ }],
    ['blocks not an array', { slack_blocks: {} }, { path: 'slack_blocks', message: /array/ }],
    ['block without type', { slack_blocks: [{ text: 'x' }] }, { path: 'slack_blocks[0]', message: /"type"/ }],
    ['block string error', { slack_blocks: [{ type: 'section', text: { type: 'mrkdwn', text: '{{ end }}' } }] }, { path: 'slack_blocks[0].text.text', message: /without an open/ }],
    ['unsupported telegram tag', { telegram_html: '<b>x</b>\n<div>y</div>' }, { path: 'telegram_html', message: /<div> is not supported/, line: 2 }],
    ['v2 without platforms', { version: 2 }, { path: 'platforms', message: /platforms must be an object/ }],
    ['v2 unknown platform', { version: 2, platforms: { chat_z: {} } }, { path: 'platforms.chat_z', message: /unknown platform/ }],
    ['v2 stray key', { version: 2, platforms: {}, title: 'x' }, { path: 'title', message: /only "version" and "platforms"/ }],
    ['v2 variant error path', { version: 2, platforms: { chat_b: { fields: [{}, {}, { name: 'x', value: '{{ .payload.x }}' }] } } }, { path: 'platforms.chat_b.fields[2].value', message: /unknown field/, line: 1 }],
    ['v2 variant not an object', { version: 2, platforms: { default: 'x' } }, { path: 'platforms.default', message: /must be an object/ }],
  ])('invalid: %s', (_name, config, expected) => {
    const problems = validateTemplateConfig(config);
    expect(problems).toContainEqual(
      expect.objectContaining({ path: expected.path, message: expect.stringMatching(expected.message), ...(expected.line ? { line: expected.line } : {}) }),
    );
  });

  test('oversized config', () => {
    expect(validateTemplateConfig({ description: 'x'.repeat(100_001) })[0].message).toMatch(/larger than/);
  });
});
