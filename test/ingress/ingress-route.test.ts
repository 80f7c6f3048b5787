import { createHmac } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { notifyEndpointChanged } from '../../src/ingress/endpoint-cache';
import { MAX_JSON_DEPTH } from '../../src/http/json-body';
import { startApiServer } from '../../src/http/server';
import { createEndpoint, createWorkspace } from '../support/factories';
import { hubSignature, postHook, postSigned } from '../support/ingress-helpers';
import { startTestApi, type TestApi } from '../support/api';
import { createTestContainer } from '../support/test-env';

describe('POST /hooks/:slug: route, body, storage, hand-off', () => {
  let api: TestApi;
  let em: EntityManager;
  let slug: string;
  let secret: string;
  let endpointId: string;

  const countEvents = async (id = endpointId) =>
    Number((await em.getConnection().execute('select count(*)::int as n from events where endpoint_id = ?', [id]))[0].n);

  beforeAll(async () => {
    api = await startTestApi({ RELAY_MAX_BODY_BYTES: '2048' });
    em = api.container.orm.em.fork();
    const { project } = await createWorkspace(em, { plan: 'growth' });
    const created = await createEndpoint(api.container, em, project);
    secret = created.signingSecret;
    slug = created.endpoint.slug;
    endpointId = created.endpoint.id;
  });

  afterAll(async () => {
    await api?.close();
  });

  it('answers 202 with event_id only once the event is committed, stored as sent and ready for the outbox', async () => {
    const body = '{"b": 1,  "a": {"x": [1, 2]}}';
    const res = await postHook(api.baseUrl, slug, body, { ...hubSignature(secret, body), 'X-Event-Type': 'thing.happened', 'X-Custom': 'yes' });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ event_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    // Read on another connection right after the answer: the row is committed.
    const [row] = await em.getConnection().execute(
      'select endpoint_id, project_id, organization_id, event_type, payload::text as payload, headers, source_ip, status, dispatched_at, idempotency_key from events where id = ?',
      [res.body.event_id],
    );
    expect(row).toMatchObject({ endpoint_id: endpointId, event_type: 'thing.happened', payload: body, status: 'received', dispatched_at: null, idempotency_key: null });
    expect(row.headers).toMatchObject({ 'x-custom': 'yes', 'content-type': 'application/json' });
    expect(row.source_ip).toMatch(/127\.0\.0\.1/);
  });

  it('wakes the outbox dispatcher with pg_notify in the same commit', async () => {
    const knex = api.container.orm.em.getConnection().getKnex();
    const client = await knex.client.acquireConnection();
    try {
      const got = new Promise<string>((resolve) => client.once('notification', (m: { channel: string }) => resolve(m.channel)));
      await client.query('listen relay_events');
      expect((await postSigned(api.baseUrl, slug, secret, { n: 1 })).status).toBe(202);
      await expect(got).resolves.toBe('relay_events');
      await client.query('unlisten relay_events');
    } finally {
      await knex.client.releaseConnection(client);
    }
  });

  it('answers 404 for an unknown slug, storing nothing', async () => {
    const res = await postSigned(api.baseUrl, 'no-such-slug', secret, { a: 1 });
    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found' });
  });

  it('answers 404 at once after the endpoint is set inactive, and accepts again once reactivated', async () => {
    const { endpoint, signingSecret } = await createEndpoint(api.container, em, (await em.findOneOrFail(WebhookEndpoint, endpointId, { populate: ['project'] })).project);
    expect((await postSigned(api.baseUrl, endpoint.slug, signingSecret, { a: 1 })).status).toBe(202);
    endpoint.isActive = false;
    await em.flush();
    await notifyEndpointChanged(em, endpoint.id);
    const res = await postSigned(api.baseUrl, endpoint.slug, signingSecret, { a: 2 });
    expect(res.status).toBe(404);
    expect(await countEvents(endpoint.id)).toBe(1);
    endpoint.isActive = true;
    await em.flush();
    await notifyEndpointChanged(em, endpoint.id);
    expect((await postSigned(api.baseUrl, endpoint.slug, signingSecret, { a: 3 })).status).toBe(202);
  });

  it.each([
    ['text/plain', 415, 'unsupported_media_type'],
    ['application/x-www-form-urlencoded', 415, 'unsupported_media_type'],
  ])('refuses Content-Type %s with %s', async (type, status, code) => {
    const before = await countEvents();
    const body = '{"a":1}';
    const res = await postHook(api.baseUrl, slug, body, { ...hubSignature(secret, body), 'Content-Type': type });
    expect(res.status).toBe(status);
    expect(res.body.error?.code).toBe(code);
    expect(await countEvents()).toBe(before);
  });

  it('accepts +json types and charsets', async () => {
    const body = '{"a":1}';
    const a = await postHook(api.baseUrl, slug, body, { ...hubSignature(secret, body), 'Content-Type': 'application/cloudevents+json; charset=utf-8' });
    expect(a.status).toBe(202);
  });

  it('answers 400 for malformed JSON (correctly signed) and 413 over the size limit, storing nothing', async () => {
    const before = await countEvents();
    const bad = '{"a": ';
    const malformed = await postHook(api.baseUrl, slug, bad, hubSignature(secret, bad));
    expect(malformed.status).toBe(400);
    expect(malformed.body.error?.code).toBe('malformed_json');
    const big = JSON.stringify({ pad: 'x'.repeat(3000) });
    const tooLarge = await postHook(api.baseUrl, slug, big, hubSignature(secret, big));
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.error?.code).toBe('payload_too_large');
    expect(await countEvents()).toBe(before);
  });

  it('answers 400 invalid_utf8 for a correctly signed body that is not valid UTF-8, storing nothing', async () => {
    const before = await countEvents();
    // "caf\xe9" in Latin-1: JSON-shaped, signed over these exact bytes, but not UTF-8.
    const body = Buffer.concat([Buffer.from('{"name": "caf'), Buffer.from([0xe9]), Buffer.from('"}')]);
    const res = await fetch(`${api.baseUrl}/hooks/${slug}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}` },
      body,
    });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: unknown }).error).toMatchObject({ code: 'invalid_utf8', message: expect.stringContaining('UTF-8') });
    expect(await countEvents()).toBe(before);
  });

  it('answers 400 json_too_deep naming the limit for a body nested past MAX_JSON_DEPTH, and accepts one at the limit', async () => {
    const before = await countEvents();
    const nest = (n: number) => '['.repeat(n) + ']'.repeat(n);
    const deep = await postHook(api.baseUrl, slug, nest(MAX_JSON_DEPTH + 1), hubSignature(secret, nest(MAX_JSON_DEPTH + 1)));
    expect(deep.status).toBe(400);
    expect(deep.body.error).toMatchObject({ code: 'json_too_deep', message: expect.stringContaining(String(MAX_JSON_DEPTH)), details: { limit: MAX_JSON_DEPTH } });
    expect(await countEvents()).toBe(before);
    expect((await postHook(api.baseUrl, slug, nest(MAX_JSON_DEPTH), hubSignature(secret, nest(MAX_JSON_DEPTH)))).status).toBe(202);
  });

  it('answers 400 naming the field when the event type or idempotency key taken from the payload holds \\u0000', async () => {
    const { endpoint, signingSecret } = await createEndpoint(api.container, em, (await em.findOneOrFail(WebhookEndpoint, endpointId)).project, {
      eventTypePath: 'kind',
      provider: 'payments_a',
    });
    const before = await countEvents(endpoint.id);
    const send = (body: string) => {
      const t = Math.floor(Date.now() / 1000);
      return postHook(api.baseUrl, endpoint.slug, body, { 'PaymentsA-Signature': `t=${t},v1=${createHmac('sha256', signingSecret).update(`${t}.${body}`).digest('hex')}` });
    };
    const type = await send('{"id":"evt_1","type":"a\\u0000b"}');
    expect(type.status).toBe(400);
    expect(type.body.error).toMatchObject({ code: 'invalid_event_type', details: { field: 'event_type' } });
    const key = await send('{"id":"evt\\u00002","type":"ok"}');
    expect(key.status).toBe(400);
    expect(key.body.error).toMatchObject({ code: 'invalid_idempotency_key' });
    expect(await countEvents(endpoint.id)).toBe(before);
    // In the payload itself the character is stored as sent.
    expect((await send('{"id":"evt_3","type":"ok","note":"a\\u0000b"}')).status).toBe(202);
  });

  it('checks the signature against the raw bytes, not a re-serialisation', async () => {
    const body = '{ "spaced" :  true }';
    expect((await postHook(api.baseUrl, slug, body, hubSignature(secret, JSON.stringify(JSON.parse(body))))).status).toBe(401);
    expect((await postHook(api.baseUrl, slug, body, hubSignature(secret, body))).status).toBe(202);
  });

  it('serves Prometheus metrics with the ingress counters', async () => {
    const res = await fetch(`${api.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).toMatch(/relay_ingress_requests_total\{status="202"\} \d+/);
    expect(text).toMatch(/relay_ingress_events_stored_total\{status="received"\} \d+/);
  });
});

describe('ingress with Temporal down', () => {
  it('still answers 202 and stores the event', async () => {
    const tc = await createTestContainer({ TEMPORAL_ADDRESS: '127.0.0.1:1' });
    const server = await startApiServer(tc.container, 0);
    try {
      const em = tc.container.orm.em.fork();
      const { project } = await createWorkspace(em, { plan: 'growth' });
      const { endpoint, signingSecret } = await createEndpoint(tc.container, em, project);
      const res = await postSigned(server.url, endpoint.slug, signingSecret, { works: true });
      expect(res.status).toBe(202);
      const rows = await em.getConnection().execute('select id from events where id = ?', [res.body.event_id]);
      expect(rows).toHaveLength(1);
    } finally {
      await server.close();
      await tc.close();
    }
  });
});

describe('ingress with the database gone', () => {
  it('answers 503 service_unavailable, never 202', async () => {
    const tc = await createTestContainer();
    const server = await startApiServer(tc.container, 0);
    try {
      const em = tc.container.orm.em.fork();
      const { project } = await createWorkspace(em, { plan: 'growth' });
      const { endpoint, signingSecret } = await createEndpoint(tc.container, em, project, { isIntegration: true });
      expect((await postSigned(server.url, endpoint.slug, signingSecret, { a: 1 })).status).toBe(202);
      await tc.db.drop();
      const res = await postSigned(server.url, endpoint.slug, signingSecret, { a: 2 });
      expect(res.status).toBe(503);
      expect(res.body.error?.code).toBe('service_unavailable');
    } finally {
      await server.close();
      await tc.close();
    }
  });
});
