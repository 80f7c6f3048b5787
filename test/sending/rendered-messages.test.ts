import { renderMessage, type TemplateMeta } from '../../src/formatting';
import { sendChatMessage } from '../../src/sending/chat.sender';
import { closeHttpAgents } from '../../src/sending/http-client';
import type { PlatformCooldowns } from '../../src/sending/platform-cooldowns';
import { type FakePlatforms, startFakePlatforms } from '../support/fake-platforms';
import { testConfig } from '../support/test-env';

/**
 * What src/formatting renders is what the platforms accept: every message
 * shape (default, embed template, blocks, HTML; long and hostile payloads)
 * goes through the real sender to the strict fake platforms.
 */
let fakes: FakePlatforms;
beforeAll(async () => {
  fakes = await startFakePlatforms();
});
afterAll(async () => {
  await fakes.close();
  await closeHttpAgents();
});

const noCooldown = { activeUntil: async () => null, set: async () => undefined } as unknown as PlatformCooldowns;
const meta: TemplateMeta = {
  EventType: 'push',
  EventID: '0190e6c8-0000-7000-8000-000000000001',
  EndpointID: '0190e6c8-0000-7000-8000-000000000002',
  EndpointSlug: 'acme-hooks',
  DestinationID: '0190e6c8-0000-7000-8000-000000000003',
  ReceivedAt: '2026-11-22T11:00:00.000Z',
  Headers: { 'x-event-type': 'push' },
};
const payloads = {
  small: { repo: { name: 'relay' }, pusher: 'octo', commits: [{ id: 'a1', message: 'fix' }] },
  hostile: { repo: { name: '<script>alert(1)</script> & <b>' }, pusher: '*bold* _it_ `code` <@everyone>', commits: [] },
  huge: { repo: { name: 'r'.repeat(600) }, body: 'x'.repeat(10_000), ...Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`key${i}`, 'v'.repeat(1500)])) },
};
const templates: Record<string, Record<string, unknown> | null> = {
  default: null,
  embed: {
    title: '{{ .Payload.repo.name }}',
    description: '{{ .Payload.body }}{{ .Payload.pusher }}',
    color: 5814783,
    fields: Array.from({ length: 30 }, (_, i) => ({ name: `f${i} {{ .Payload.repo.name }}`, value: '{{ .Payload.key1 }}{{ .Payload.pusher }}', inline: true })),
    footer: '{{ .Meta.EndpointSlug }}',
    author: '{{ .Payload.pusher }}',
    thumbnail: 'https://img.invalid/{{ .Payload.repo.name }}.png',
    timestamp: true,
  },
  platforms: {
    version: 2,
    platforms: {
      chat_a: {
        slack_blocks: [
          { type: 'header', text: { type: 'plain_text', text: '{{ .Payload.repo.name }}' } },
          { type: 'section', text: { type: 'mrkdwn', text: '*Pusher* {{ .Payload.pusher }} {{ .Payload.body }}' } },
          { type: 'divider' },
        ],
      },
      chat_c: { telegram_html: '<b>{{ .Payload.repo.name }}</b> <div>{{ .Payload.pusher }}</div> <i>{{ .Payload.body }}</i>' },
      default: { content: '{{ .Payload.pusher }} pushed {{ .Payload.body }}' },
    },
  },
};

const cases = Object.entries(templates).flatMap(([template, config]) =>
  Object.keys(payloads).flatMap((payload) => (['chat_a', 'chat_b', 'chat_c'] as const).map((platform) => [platform, template, payload, config] as const)),
);

it.each(cases)('%s accepts the %s template with the %s payload', async (platform, _template, payloadName, config) => {
  const message = renderMessage({ platform, templateConfig: config, payload: payloads[payloadName as keyof typeof payloads], meta });
  const addressing =
    platform === 'chat_a'
      ? { botToken: fakes.chatA.botToken, channelId: fakes.chatA.channel }
      : platform === 'chat_b'
        ? { webhookUrl: fakes.chatB.webhookUrl }
        : { botToken: fakes.chatC.botToken, channelId: fakes.chatC.chat };
  const result = await sendChatMessage(
    { platform, ...addressing, message, eventId: meta.EventID, timeoutMs: 5000, allowPrivateNetworks: true },
    { config: testConfig(fakes.env), cooldowns: noCooldown },
  );
  expect({ ok: result.ok, error: result.error }).toEqual({ ok: true, error: null });
});
