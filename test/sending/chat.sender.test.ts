import type { Config } from '../../src/config/config';
import { sendChatMessage, type ChatSendArgs } from '../../src/sending/chat.sender';
import { closeHttpAgents } from '../../src/sending/http-client';
import { PlatformCooldowns } from '../../src/sending/platform-cooldowns';
import { type FakePlatforms, startFakePlatforms } from '../support/fake-platforms';
import { createTestContainer, type TestContainer, testConfig } from '../support/test-env';

let fakes: FakePlatforms;
let tc: TestContainer;
let config: Config;
let cooldowns: PlatformCooldowns;

beforeAll(async () => {
  fakes = await startFakePlatforms();
  tc = await createTestContainer(fakes.env);
  config = tc.container.config;
});
beforeEach(async () => {
  fakes.reset();
  await tc.container.orm.em.fork().getConnection().execute('delete from platform_cooldowns');
  cooldowns = new PlatformCooldowns(tc.container.orm);
});
afterAll(async () => {
  await fakes?.close();
  await tc?.close();
  await closeHttpAgents();
});

const embedMessage = {
  content: 'New event: **push**',
  embeds: [
    {
      title: 'relay: 3 new commits',
      description: 'Pushed to `main`',
      color: 5814783,
      fields: [
        { name: 'Author', value: 'octo', inline: true },
        { name: 'Branch', value: 'main', inline: true },
      ],
      footer: { text: 'webhook relay' },
      timestamp: '2026-11-22T11:00:00.000Z',
    },
  ],
};
const blocksMessage = {
  text: 'New event: push',
  blocks: [
    { type: 'header', text: { type: 'plain_text', text: 'relay: 3 new commits' } },
    { type: 'section', text: { type: 'mrkdwn', text: 'Pushed to `main`' }, fields: [{ type: 'mrkdwn', text: '*Author*\nocto' }] },
    { type: 'divider' },
  ],
};
const attachmentsMessage = {
  text: 'New event: push',
  attachments: [{ fallback: 'relay: 3 new commits', color: '#58b9ff', title: 'relay: 3 new commits', text: 'Pushed to main', fields: [{ title: 'Author', value: 'octo', short: true }] }],
};
const htmlMessage = { text: '<b>relay</b>: 3 new commits to <code>main</code> &amp; more', parse_mode: 'HTML' };

const base = (over: Partial<ChatSendArgs>): ChatSendArgs => ({
  platform: 'chat_b',
  message: embedMessage,
  eventId: '0190e6c8-0000-7000-8000-000000000001',
  timeoutMs: 5000,
  allowPrivateNetworks: true,
  ...over,
});
const send = (over: Partial<ChatSendArgs>, deps: { config?: Config; cooldowns?: PlatformCooldowns } = {}) =>
  sendChatMessage(base(over), { config: deps.config ?? config, cooldowns: deps.cooldowns ?? cooldowns });

describe('chat_b', () => {
  it('posts to a webhook URL with wait=true and gets the created message back', async () => {
    const result = await send({ platform: 'chat_b', webhookUrl: fakes.chatB.webhookUrl });
    expect(result).toMatchObject({ ok: true, statusCode: 200, error: null });
    expect(result.payloadSent).toEqual(embedMessage);
    expect(JSON.parse(result.responseBody!)).toMatchObject({ webhook_id: '600000000000000001', embeds: embedMessage.embeds });
    expect(fakes.chatB.delivered).toHaveLength(1);
    expect(fakes.chatB.delivered[0].query).toEqual({ wait: 'true' });
    expect(fakes.chatB.delivered[0].body).toEqual(embedMessage);
  });

  it('keeps the webhook URL\'s own query (e.g. a thread) when adding wait=true', async () => {
    const result = await send({ platform: 'chat_b', webhookUrl: `${fakes.chatB.webhookUrl}?thread_id=42&wait=false` });
    expect(result.ok).toBe(true);
    expect(fakes.chatB.delivered[0].query).toEqual({ thread_id: '42', wait: 'true' });
  });

  it('posts to the channel with a bot token', async () => {
    const result = await send({ platform: 'chat_b', botToken: fakes.chatB.botToken, channelId: fakes.chatB.channel, guildId: '1' });
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    const [req] = fakes.chatB.delivered;
    expect(req.path).toBe(`/api/v10/channels/${fakes.chatB.channel}/messages`);
    expect(req.headers.authorization).toBe(`Bot ${fakes.chatB.botToken}`);
    expect(req.body).toEqual(embedMessage);
  });

  it('records the platform rejection of an invalid embed', async () => {
    const message = { embeds: [{ title: 'x'.repeat(257) }] };
    const result = await send({ platform: 'chat_b', webhookUrl: fakes.chatB.webhookUrl, message });
    expect(result).toMatchObject({ ok: false, statusCode: 400, error: 'HTTP 400 Bad Request: Invalid Form Body' });
    expect(JSON.parse(result.responseBody!).errors).toHaveProperty(['embeds.0.title']);
    expect(fakes.chatB.delivered).toHaveLength(0);
  });

  it('fails with a wrong bot token (401)', async () => {
    const result = await send({ platform: 'chat_b', botToken: 'wrong', channelId: fakes.chatB.channel });
    expect(result).toMatchObject({ ok: false, statusCode: 401, error: 'HTTP 401 Unauthorized: 401: Unauthorized' });
  });
});

describe('chat_a', () => {
  it('posts blocks to a webhook URL', async () => {
    const result = await send({ platform: 'chat_a', webhookUrl: fakes.chatA.webhookUrl, message: blocksMessage });
    expect(result).toMatchObject({ ok: true, statusCode: 200, responseBody: 'ok' });
    expect(fakes.chatA.delivered[0].body).toEqual(blocksMessage);
  });

  it('posts attachments with a bot token to chat.postMessage, addressed to channel_id', async () => {
    const result = await send({ platform: 'chat_a', botToken: fakes.chatA.botToken, channelId: fakes.chatA.channel, message: attachmentsMessage });
    expect(result.ok).toBe(true);
    const [req] = fakes.chatA.delivered;
    expect(req.path).toBe('/api/chat.postMessage');
    expect(req.headers.authorization).toBe(`Bearer ${fakes.chatA.botToken}`);
    expect(req.body).toEqual({ channel: fakes.chatA.channel, ...attachmentsMessage });
    expect(result.payloadSent).toEqual(req.body);
    expect(JSON.parse(result.responseBody!)).toMatchObject({ ok: true, channel: fakes.chatA.channel });
  });

  it('treats a 200 with ok:false as a failure', async () => {
    const result = await send({ platform: 'chat_a', botToken: fakes.chatA.botToken, channelId: 'C0UNKNOWN', message: blocksMessage });
    expect(result).toMatchObject({ ok: false, statusCode: 200, error: 'chat_a API error: channel_not_found' });
  });

  it('records the webhook rejection of a message without text', async () => {
    const result = await send({ platform: 'chat_a', webhookUrl: fakes.chatA.webhookUrl, message: { blocks: [] } });
    expect(result).toMatchObject({ ok: false, statusCode: 400, error: 'HTTP 400 Bad Request: no_text' });
  });
});

describe('chat_c', () => {
  it('sends HTML with a bot token to chat_id', async () => {
    const result = await send({ platform: 'chat_c', botToken: fakes.chatC.botToken, channelId: fakes.chatC.chat, message: htmlMessage });
    expect(result).toMatchObject({ ok: true, statusCode: 200 });
    const [req] = fakes.chatC.delivered;
    expect(req.path).toBe(`/bot${fakes.chatC.botToken}/sendMessage`);
    expect(req.body).toEqual({ chat_id: fakes.chatC.chat, ...htmlMessage });
    expect(JSON.parse(result.responseBody!)).toMatchObject({ ok: true, result: { text: htmlMessage.text } });
  });

  it('records the platform rejection of unsupported HTML', async () => {
    const message = { text: '<div>hi</div>', parse_mode: 'HTML' };
    const result = await send({ platform: 'chat_c', botToken: fakes.chatC.botToken, channelId: fakes.chatC.chat, message });
    expect(result).toMatchObject({ ok: false, statusCode: 400 });
    expect(result.error).toBe(`HTTP 400 Bad Request: Bad Request: can't parse entities: Unsupported start tag "div" at byte offset 0`);
  });

  it('cannot send through a webhook URL', async () => {
    const result = await send({ platform: 'chat_c', webhookUrl: 'https://hooks.invalid/x', message: htmlMessage });
    expect(result).toMatchObject({ ok: false, permanent: true });
  });
});

describe('configuration and addressing errors', () => {
  it('fails permanently, naming the variable, when a bot-token send has no API base URL', async () => {
    const bare = testConfig({ CHAT_C_API_BASE_URL: '' });
    const result = await send({ platform: 'chat_c', botToken: fakes.chatC.botToken, channelId: fakes.chatC.chat, message: htmlMessage }, { config: bare });
    expect(result).toMatchObject({ ok: false, permanent: true, statusCode: null });
    expect(result.error).toMatch(/^CHAT_C_API_BASE_URL is not set/);
    expect(fakes.chatC.requests).toHaveLength(0);
  });

  it('needs a channel id with a bot token', async () => {
    const result = await send({ platform: 'chat_a', botToken: fakes.chatA.botToken, message: blocksMessage });
    expect(result).toMatchObject({ ok: false, permanent: true, error: 'a chat_a destination with a bot token needs a channel_id' });
  });

  it('guards user webhook URLs in production mode but trusts the configured API base', async () => {
    const refused = await send({ platform: 'chat_b', webhookUrl: fakes.chatB.webhookUrl, allowPrivateNetworks: false });
    expect(refused).toMatchObject({ ok: false, permanent: true });
    expect(refused.error).toMatch(/refused to connect/);
    const viaApi = await send({ platform: 'chat_b', botToken: fakes.chatB.botToken, channelId: fakes.chatB.channel, allowPrivateNetworks: false });
    expect(viaApi.ok).toBe(true);
    expect(fakes.chatB.delivered).toHaveLength(1);
  });
});

describe('429 handling (docs/receiver-signals.md)', () => {
  /** A chat_b send through the configured platform API, with a bot token. */
  const api = (token = fakes.chatB.botToken) => ({ platform: 'chat_b' as const, botToken: token, channelId: fakes.chatB.channel });

  it('chat_b per-route limit: rateLimited with the fractional retry_after, no cooldown', async () => {
    fakes.chatB.rateLimitNext(1.5);
    const result = await send(api());
    expect(result).toMatchObject({ ok: false, statusCode: 429, rateLimited: { retryAfterMs: 1500, global: false } });
    expect(await new PlatformCooldowns(tc.container.orm).activeUntil('chat_b', fakes.chatB.botToken)).toBeNull();
  });

  it("chat_b global limit from the platform's API: every worker holds that bot token until it passes, and only that token", async () => {
    fakes.chatB.rateLimitNext(30, { global: true });
    const before = Date.now();
    const result = await send(api());
    expect(result.rateLimited).toEqual({ retryAfterMs: 30_000, global: true });
    expect(result.error).toBe('rate limited by chat_b (global limit for this bot token): retry after 30000 ms');
    expect(fakes.chatB.requests).toHaveLength(1);

    // Another worker: its own PlatformCooldowns on the same database.
    const otherWorker = new PlatformCooldowns(tc.container.orm);
    const until = await otherWorker.activeUntil('chat_b', fakes.chatB.botToken);
    expect(until!.getTime()).toBeGreaterThanOrEqual(before + 30_000);
    expect(until!.getTime()).toBeLessThanOrEqual(Date.now() + 30_000);

    const blocked = await send(api(), { cooldowns: otherWorker });
    expect(blocked).toMatchObject({ ok: false, statusCode: null, rateLimited: { global: true } });
    expect(blocked.error).toMatch(/^chat_b's global rate limit for this bot token lasts until .*; not sent$/);
    expect(blocked.rateLimited!.retryAfterMs).toBeGreaterThan(25_000);
    expect(fakes.chatB.requests).toHaveLength(1); // nothing was sent
    // Another bot token, a webhook URL and other platforms are unaffected.
    expect((await send(api(fakes.chatB.otherBotToken), { cooldowns: otherWorker })).ok).toBe(true);
    expect((await send({ platform: 'chat_b', webhookUrl: fakes.chatB.webhookUrl }, { cooldowns: otherWorker })).ok).toBe(true);
    expect((await send({ platform: 'chat_a', webhookUrl: fakes.chatA.webhookUrl, message: blocksMessage }, { cooldowns: otherWorker })).ok).toBe(true);
    expect(fakes.chatB.delivered).toHaveLength(2);
  });

  it("a webhook URL's \"global\" 429 concerns that delivery alone: no cooldown, for the platform or any token", async () => {
    fakes.chatB.rateLimitNext(120, { global: true });
    const result = await send({ platform: 'chat_b', webhookUrl: fakes.chatB.webhookUrl });
    expect(result).toMatchObject({ ok: false, statusCode: 429, rateLimited: { retryAfterMs: 120_000, global: false } });
    expect(result.error).toBe('rate limited by the chat_b webhook URL: retry after 120000 ms');
    expect(await tc.container.orm.em.fork().getConnection().execute('select * from platform_cooldowns')).toEqual([]);
    expect((await send({ platform: 'chat_b', webhookUrl: fakes.chatB.webhookUrl })).ok).toBe(true);
    expect((await send(api())).ok).toBe(true);
  });

  it('sends again once a global cooldown has passed (at least the 1 s floor, even when the platform says 0.2 s)', async () => {
    fakes.chatB.rateLimitNext(0.2, { global: true });
    expect((await send(api())).rateLimited).toEqual({ retryAfterMs: 1000, global: true });
    const otherWorker = new PlatformCooldowns(tc.container.orm, 0);
    expect((await send(api(), { cooldowns: otherWorker })).rateLimited).toBeDefined();
    await new Promise((r) => setTimeout(r, 1100));
    const result = await send(api(), { cooldowns: otherWorker });
    expect(result.ok).toBe(true);
    expect(fakes.chatB.delivered).toHaveLength(1);
  });

  it('chat_a: Retry-After header', async () => {
    fakes.chatA.rateLimitNext(7);
    const result = await send({ platform: 'chat_a', botToken: fakes.chatA.botToken, channelId: fakes.chatA.channel, message: blocksMessage });
    expect(result).toMatchObject({ ok: false, statusCode: 429, rateLimited: { retryAfterMs: 7000, global: false } });
  });

  it('chat_c: parameters.retry_after', async () => {
    fakes.chatC.rateLimitNext(3);
    const result = await send({ platform: 'chat_c', botToken: fakes.chatC.botToken, channelId: fakes.chatC.chat, message: htmlMessage });
    expect(result).toMatchObject({ ok: false, statusCode: 429, rateLimited: { retryAfterMs: 3000, global: false } });
    expect(result.error).toBe('rate limited by chat_c: retry after 3000 ms');
    expect(await cooldowns.activeUntil('chat_c', fakes.chatC.botToken)).toBeNull();
  });

  it('a 5xx is an ordinary failure, not a rate limit', async () => {
    fakes.chatC.answerNext({ status: 502, body: 'Bad Gateway' });
    const result = await send({ platform: 'chat_c', botToken: fakes.chatC.botToken, channelId: fakes.chatC.chat, message: htmlMessage });
    expect(result).toMatchObject({ ok: false, statusCode: 502, error: 'HTTP 502 Bad Gateway: Bad Gateway' });
    expect(result.rateLimited).toBeUndefined();
  });

  it("a platform's 410 Gone is permanent and pauses the destination; its 503 with Retry-After is waited out", async () => {
    fakes.chatB.answerNext({ status: 410, body: { message: 'Unknown Webhook', code: 10015 } });
    const gone = await send({ platform: 'chat_b', botToken: fakes.chatB.botToken, channelId: fakes.chatB.channel, message: embedMessage });
    expect(gone).toMatchObject({ ok: false, statusCode: 410, gone: true, permanent: true });
    expect(gone.error).toBe('HTTP 410 Gone: Unknown Webhook: the receiver says this URL is gone; the destination is paused');
    fakes.chatA.answerNext({ status: 503, headers: { 'retry-after': '20' }, body: 'down for maintenance' });
    const unavailable = await send({ platform: 'chat_a', botToken: fakes.chatA.botToken, channelId: fakes.chatA.channel, message: blocksMessage });
    expect(unavailable).toMatchObject({ ok: false, statusCode: 503, unavailable: { retryAfterMs: 20_000 }, retryAfterMs: 20_000 });
  });
});
