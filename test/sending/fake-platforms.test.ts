import { parseChatCHtml, type FakePlatforms, startFakePlatforms } from '../support/fake-platforms';

/** The fakes must reject what the real platforms reject, or the sender tests would prove nothing. */
let fakes: FakePlatforms;
beforeAll(async () => {
  fakes = await startFakePlatforms();
});
afterAll(async () => {
  await fakes.close();
});

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  let json: unknown = null;
  try {
    json = JSON.parse(text);
  } catch {
    // plain-text answers (chat_a webhooks)
  }
  return { status: res.status, text, json: json as Record<string, unknown> };
}

describe('chat_b fake', () => {
  const channelUrl = () => `${fakes.chatB.apiBaseUrl}/channels/${fakes.chatB.channel}/messages`;
  const bot = () => ({ authorization: `Bot ${fakes.chatB.botToken}` });
  const embed = (over: Record<string, unknown>) => ({ embeds: [{ title: 't', ...over }] });

  it.each([
    ['an empty message', {}, 50006],
    ['empty content and no embeds', { content: '  ', embeds: [] }, 50006],
    ['content over 2000', { content: 'x'.repeat(2001) }, 50035],
    ['an unknown top-level field', { text: 'hi' }, 50035],
    ['11 embeds', { embeds: Array.from({ length: 11 }, () => ({ title: 't' })) }, 50035],
    ['a title over 256', embed({ title: 'x'.repeat(257) }), 50035],
    ['a description over 4096', embed({ description: 'x'.repeat(4097) }), 50035],
    ['26 fields', embed({ fields: Array.from({ length: 26 }, () => ({ name: 'n', value: 'v' })) }), 50035],
    ['a field value over 1024', embed({ fields: [{ name: 'n', value: 'x'.repeat(1025) }] }), 50035],
    ['an empty field name', embed({ fields: [{ name: '', value: 'v' }] }), 50035],
    ['a color out of range', embed({ color: 0x1000000 }), 50035],
    ['a string footer', embed({ footer: 'text' }), 50035],
    ['an author without name', embed({ author: { url: 'https://a.invalid' } }), 50035],
    ['a bad timestamp', embed({ timestamp: 'yesterday' }), 50035],
    ['a thumbnail that is not a URL', embed({ thumbnail: { url: 'x' } }), 50035],
    ['an unknown embed field', embed({ colour: 1 }), 50035],
    ['embeds over 6000 characters in total', { embeds: [0, 1].map(() => ({ description: 'x'.repeat(3001) })) }, 50035],
  ])('rejects %s', async (_name, body, code) => {
    const res = await post(channelUrl(), body, bot());
    expect(res.status).toBe(400);
    expect(res.json.code).toBe(code);
  });

  it('accepts a full embed, and answers a webhook without wait with 204', async () => {
    const body = embed({ description: 'd', color: 0xffffff, fields: [{ name: 'n', value: 'v', inline: true }], footer: { text: 'f' }, author: { name: 'a' }, timestamp: '2026-01-01T00:00:00Z', thumbnail: { url: 'https://x.invalid/t.png' } });
    expect((await post(channelUrl(), body, bot())).status).toBe(200);
    expect((await post(fakes.chatB.webhookUrl, body)).status).toBe(204);
  });

  it('checks auth, channel, webhook and JSON', async () => {
    expect((await post(channelUrl(), { content: 'x' }, { authorization: 'Bearer nope' })).status).toBe(401);
    expect((await post(`${fakes.chatB.apiBaseUrl}/channels/1/messages`, { content: 'x' }, bot())).json.code).toBe(10003);
    expect((await post(`${fakes.chatB.apiBaseUrl}/webhooks/1/x`, { content: 'x' })).json.code).toBe(10015);
    expect((await post(channelUrl(), '{not json', bot())).json.code).toBe(50109);
  });
});

describe('chat_a fake', () => {
  const api = (body: unknown, token = fakes.chatA.botToken) =>
    post(`${fakes.chatA.apiBaseUrl}/chat.postMessage`, body, { authorization: `Bearer ${token}` });
  const channel = () => fakes.chatA.channel;

  it.each([
    ['no text, blocks or attachments', {}, 'no_text'],
    ['an unknown field (an embed)', { text: 'x', embeds: [] }, 'invalid_arguments'],
    ['an unknown block type', { blocks: [{ type: 'banner' }] }, 'invalid_blocks'],
    ['a header with mrkdwn text', { blocks: [{ type: 'header', text: { type: 'mrkdwn', text: 'x' } }] }, 'invalid_blocks'],
    ['a header over 150', { blocks: [{ type: 'header', text: { type: 'plain_text', text: 'x'.repeat(151) } }] }, 'invalid_blocks'],
    ['a section without text or fields', { blocks: [{ type: 'section' }] }, 'invalid_blocks'],
    ['a section text as a plain string', { blocks: [{ type: 'section', text: 'hello' }] }, 'invalid_blocks'],
    ['11 section fields', { blocks: [{ type: 'section', fields: Array.from({ length: 11 }, () => ({ type: 'mrkdwn', text: 'x' })) }] }, 'invalid_blocks'],
    ['51 blocks', { blocks: Array.from({ length: 51 }, () => ({ type: 'divider' })) }, 'invalid_blocks'],
    ['a bad attachment color', { attachments: [{ text: 'x', color: 'blue' }] }, 'invalid_attachments'],
    ['an empty attachment', { attachments: [{ color: '#000000' }] }, 'invalid_attachments'],
    ['an attachment field without value', { attachments: [{ text: 'x', fields: [{ title: 't' }] }] }, 'invalid_attachments'],
    ['text over 40000', { text: 'x'.repeat(40_001) }, 'msg_too_long'],
  ])('rejects %s', async (_name, body, error) => {
    const res = await api({ channel: channel(), ...body });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ ok: false, error });
  });

  it('checks auth and channel, with 200 and ok:false', async () => {
    expect((await post(`${fakes.chatA.apiBaseUrl}/chat.postMessage`, { channel: channel(), text: 'x' })).json).toEqual({ ok: false, error: 'not_authed' });
    expect((await api({ channel: channel(), text: 'x' }, 'xoxb-wrong')).json).toEqual({ ok: false, error: 'invalid_auth' });
    expect((await api({ channel: 'C0OTHER', text: 'x' })).json).toEqual({ ok: false, error: 'channel_not_found' });
    expect((await api({ text: 'x' })).json).toEqual({ ok: false, error: 'channel_not_found' });
  });

  it('answers webhooks in plain text', async () => {
    expect(await post(fakes.chatA.webhookUrl, { text: 'hi' })).toMatchObject({ status: 200, text: 'ok' });
    expect(await post(fakes.chatA.webhookUrl, {})).toMatchObject({ status: 400, text: 'no_text' });
    expect(await post(fakes.chatA.webhookUrl, '{oops')).toMatchObject({ status: 400, text: 'invalid_payload' });
    expect(await post(`${fakes.chatA.origin}/services/T/B/wrong`, { text: 'hi' })).toMatchObject({ status: 404, text: 'no_service' });
  });
});

describe('chat_c fake', () => {
  const send = (body: Record<string, unknown>, token = fakes.chatC.botToken) => post(`${fakes.chatC.apiBaseUrl}/bot${token}/sendMessage`, { chat_id: fakes.chatC.chat, ...body });

  it.each([
    ['an empty text', { text: ' ' }, 'Bad Request: message text is empty'],
    ['a missing text', {}, 'Bad Request: message text is empty'],
    ['an unknown parse_mode', { text: 'x', parse_mode: 'html' }, 'Bad Request: unsupported parse_mode'],
    ['an unknown parameter', { text: 'x', embeds: [] }, 'Bad Request: unknown parameter "embeds"'],
    ['text over 4096', { text: 'x'.repeat(4097) }, 'Bad Request: message is too long'],
    ['an unknown chat', { text: 'x', chat_id: '42' }, 'Bad Request: chat not found'],
  ])('rejects %s', async (_name, body, description) => {
    const res = await send(body);
    expect(res.status).toBe(400);
    expect(res.json).toEqual({ ok: false, error_code: 400, description });
  });

  it('rejects a wrong token with 401', async () => {
    expect((await send({ text: 'x' }, '1:wrong')).json).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' });
  });

  it('counts visible characters of HTML against the length limit', async () => {
    expect((await send({ text: `<b>${'x'.repeat(4096)}</b>`, parse_mode: 'HTML' })).status).toBe(200);
    expect((await send({ text: `<b>${'x'.repeat(4097)}</b>`, parse_mode: 'HTML' })).status).toBe(400);
  });
});

describe('parseChatCHtml', () => {
  it.each([
    ['<b>bold</b> <i>it</i> <u>u</u> <s>s</s> <code>c</code> <pre>p</pre> <blockquote>q</blockquote>', true],
    ['<a href="https://x.invalid">link</a> <tg-spoiler>s</tg-spoiler> <span class="tg-spoiler">s</span>', true],
    ['<b><i>nested</i></b> &lt;tag&gt; &amp; &quot; &#39; &#x27;', true],
    ['<div>x</div>', false],
    ['<br>', false],
    ['<b>unclosed', false],
    ['<b><i>crossed</b></i>', false],
    ['a & b', false],
    ['1 < 2', false],
    ['<a>no href</a>', false],
    ['<span>plain span</span>', false],
  ])('%s → valid %s', (html, valid) => {
    expect('length' in parseChatCHtml(html)).toBe(valid);
  });

  it('names the unsupported tag and its byte offset', () => {
    expect(parseChatCHtml('héllo <div>')).toEqual({ error: `Bad Request: can't parse entities: Unsupported start tag "div" at byte offset 7` });
  });
});
