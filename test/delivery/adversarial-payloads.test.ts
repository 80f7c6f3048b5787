import { createHmac } from 'node:crypto';
import { MAX_JSON_DEPTH } from '../../src/http/json-body';
import { type ServiceProcess, startServiceProcess } from '../support/service-process';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { createScene, type Scene, sql } from './harness';
import { type Receiver, startReceiver } from './receiver';

const nest = (open: string, close: string, n: number, inner = '') => open.repeat(n) + inner + close.repeat(n);

/**
 * What a sender posts is refused at ingress with a 400, or delivered to the receiver byte for
 * byte (docs/internals/ingress.md "What ingress refuses, and why", docs/delivery.md "One event cannot stop the
 * others"). Bodies are written as raw text, so what is compared is exactly what was sent.
 */
const CORPUS: Array<{ name: string; body: string | Buffer; refused?: string }> = [
  { name: `arrays nested ${MAX_JSON_DEPTH} deep`, body: nest('[', ']', MAX_JSON_DEPTH) },
  { name: `arrays nested ${MAX_JSON_DEPTH + 1} deep`, body: nest('[', ']', MAX_JSON_DEPTH + 1), refused: 'json_too_deep' },
  { name: `objects nested ${MAX_JSON_DEPTH} deep`, body: nest('{"a":', '}', MAX_JSON_DEPTH, '1') },
  { name: `objects nested ${MAX_JSON_DEPTH + 1} deep`, body: nest('{"a":', '}', MAX_JSON_DEPTH + 1, '1'), refused: 'json_too_deep' },
  { name: '20,000 nested arrays (40 KB)', body: nest('[', ']', 20_000), refused: 'json_too_deep' },
  { name: 'brackets inside strings are text', body: `{"s":"${'['.repeat(1000)}","t":"\\"${'{'.repeat(1000)}"}` },
  { name: 'a 300,000-element array', body: `[${Array(300_000).fill('0').join(',')}]` },
  { name: 'a 900 KB string', body: JSON.stringify({ s: 'x'.repeat(900_000) }) },
  { name: 'a megabyte of distinct words (overflows a full-text vector)', body: JSON.stringify(Array.from({ length: 165_000 }, (_, n) => `w${n.toString(36)}`).join(' ')) },
  { name: 'number forms', body: '[0,-0,1,-1,0.5,-0.0,1e400,-1e400,1e-400,1E+2,1e-2,2.5E-3,9007199254740993,-9007199254740993,123456789012345678901234567890.123456789]' },
  { name: 'a number past numeric range', body: '{"n":1e1000000,"m":-1e-1000000}' },
  { name: 'a 200,000-digit integer', body: `{"n":${'9'.repeat(200_000)}}` },
  { name: 'a NUL character in a string', body: '{"a":"x\\u0000y","\\u0000":"key"}' },
  { name: 'lone surrogate escapes', body: '{"high":"\\ud800","low":"\\udc00x","pair":"\\ud83d\\ude00","reversed":"\\udc00\\ud800"}' },
  { name: 'every escape', body: '{"e":"\\"\\\\\\/\\b\\f\\n\\r\\t\\u00e9\\u2028\\uFFFF"}' },
  { name: 'duplicate keys', body: '{"a":1,"a":2,"a":{"b":1,"b":[]}}' },
  { name: 'whitespace and key order', body: ' \n\t{ "z" : [ 1 ,2 ] , "a":{ } }\r\n ' },
  { name: 'multi-byte text', body: '{"t":"café ☃ 😀 𝄞 ‮"}' },
  { name: 'scalars at the top', body: '"just a string"' },
  { name: 'null at the top', body: 'null' },
  { name: 'raw lone surrogate bytes (not UTF-8)', body: Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]), refused: 'invalid_utf8' },
  { name: 'truncated JSON', body: '{"a":[1,2', refused: 'malformed_json' },
  { name: 'two documents', body: '{}{}', refused: 'malformed_json' },
];

describe('adversarial payloads end to end: refused with a 400 or delivered byte for byte, none stuck, the other tenant flowing', () => {
  let t: TestContainer;
  let service: ServiceProcess;
  let corpusReceiver: Receiver;
  let otherReceiver: Receiver;
  let corpus: Scene;
  let other: Scene;

  beforeAll(async () => {
    t = await createTestContainer();
    corpusReceiver = await startReceiver();
    otherReceiver = await startReceiver();
    service = await startServiceProcess({ databaseUrl: t.db.url });
    while (!service.output().includes('webhook relay is running')) await new Promise((r) => setTimeout(r, 100));
    corpus = await createScene(t.container);
    await corpus.destination(corpusReceiver.url);
    other = await createScene(t.container);
    await other.destination(otherReceiver.url);
  }, 180_000);

  afterAll(async () => {
    await service?.stop();
    await corpusReceiver?.close();
    await otherReceiver?.close();
    await t?.close();
  });

  const post = async (scene: Scene, body: string | Buffer, headers: Record<string, string> = {}) => {
    const res = await fetch(`${service.baseUrl}/hooks/${scene.endpoint.slug}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${createHmac('sha256', scene.signingSecret).update(body).digest('hex')}`, ...headers },
      body,
    });
    return { status: res.status, body: (await res.json()) as { event_id?: string; error?: { code: string; message: string } } };
  };
  // Bounded so that a stuck pipeline fails here, naming what it waited for, rather than at the test's timeout.
  const until = async (check: () => boolean, what: string) => {
    const deadline = Date.now() + 90_000;
    while (!check()) {
      if (Date.now() > deadline) throw new Error(`still waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  it('answers each payload as the corpus says, and delivers the other tenant\'s event after each one', async () => {
    const delivered: string[] = [];
    for (const [i, item] of CORPUS.entries()) {
      const res = await post(corpus, item.body);
      if (item.refused) {
        expect({ name: item.name, status: res.status, code: res.body.error?.code }).toEqual({ name: item.name, status: 400, code: item.refused });
      } else {
        expect({ name: item.name, status: res.status }).toEqual({ name: item.name, status: 202 });
        delivered.push(item.name);
      }
      // The other organization's next event is delivered while this one is in the pipeline.
      const flowing = JSON.stringify({ after: item.name });
      expect((await post(other, flowing)).status).toBe(202);
      await until(() => otherReceiver.requests.length === i + 1, `the other tenant's event after "${item.name}"`);
      expect(otherReceiver.requests[i].body).toBe(flowing);
    }

    // Every accepted body reaches the receiver exactly as sent.
    await until(() => corpusReceiver.requests.length === delivered.length, 'every accepted payload at the receiver');
    const expected = CORPUS.filter((c) => !c.refused).map((c) => c.body.toString());
    expect(corpusReceiver.requests.map((r) => r.body).sort()).toEqual([...expected].sort());
  }, 300_000);

  it('an event type far longer than a Temporal keyword is delivered too', async () => {
    const before = corpusReceiver.requests.length;
    const body = '{"long":"type"}';
    expect((await post(corpus, body, { 'x-event-type': `t.${'x'.repeat(4000)}` })).status).toBe(202);
    await until(() => corpusReceiver.requests.length === before + 1, 'the long-typed event at the receiver');
    expect(corpusReceiver.requests[before].body).toBe(body);
  }, 120_000);

  it('leaves nothing stuck: every event dispatched, no quarantine, every delivery a success', async () => {
    expect(await sql(t.container, 'select id from events where dispatched_at is null or quarantined_at is not null')).toEqual([]);
    expect(await sql(t.container, `select id, status from deliveries where status <> 'success'`)).toEqual([]);
  });
});
