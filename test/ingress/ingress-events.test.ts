import type { EntityManager } from '@mikro-orm/postgresql';
import type { TypingRule } from '../../src/common/types';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { notifyEndpointChanged } from '../../src/ingress/endpoint-cache';
import { startApiServer } from '../../src/http/server';
import type { Project } from '../../src/projects/project.entity';
import { createEndpoint, createWorkspace } from '../support/factories';
import { createFilterGroup, hmacHex, postHook, postSigned } from '../support/ingress-helpers';
import { startTestApi, type TestApi } from '../support/api';
import { createTestContainer } from '../support/test-env';

describe('ingress: event types, idempotency, filters', () => {
  let api: TestApi;
  let em: EntityManager;
  let project: Project;

  beforeAll(async () => {
    api = await startTestApi();
    em = api.container.orm.em.fork();
    ({ project } = await createWorkspace(em, { plan: 'growth' }));
  });

  afterAll(async () => {
    await api?.close();
  });

  const event = async (id: string) => (await em.getConnection().execute('select event_type, status, idempotency_key, dispatched_at from events where id = ?', [id]))[0];
  const count = async (endpointId: string) => Number((await em.getConnection().execute('select count(*)::int as n from events where endpoint_id = ?', [endpointId]))[0].n);
  const endpoint = (fields: Partial<WebhookEndpoint> = {}) => createEndpoint(api.container, em, project, fields);

  describe('event type extraction', () => {
    it('follows the order: provider header, configured header, event_type_path, X-Event-Type, typing rules', async () => {
      const rules: TypingRule[] = [{ name: 'r', logic: 'AND', conditions: [{ field: 'body.kind', operator: 'exists' }], parts: [{ literal: 'rule' }, { path: 'body.kind' }] }];
      const { endpoint: ep, signingSecret: s } = await endpoint({ eventTypeHeader: 'X-My-Type', eventTypePath: 'meta.type', typingRules: rules });
      const send = async (payload: unknown, headers: Record<string, string> = {}) => {
        const res = await postSigned(api.baseUrl, ep.slug, s, payload, headers);
        expect(res.status).toBe(202);
        return (await event(res.body.event_id!)).event_type;
      };
      const full = { meta: { type: 'from.path' }, kind: 'k' };
      expect(await send(full, { 'X-CodehostA-Event': 'push', 'X-My-Type': 'configured', 'X-Event-Type': 'generic' })).toBe('push');
      expect(await send(full, { 'x-my-type': 'configured', 'X-Event-Type': 'generic' })).toBe('configured');
      expect(await send(full, { 'X-Event-Type': 'generic' })).toBe('from.path');
      expect(await send({ kind: 'k' }, { 'X-Event-Type': 'generic' })).toBe('generic');
      expect(await send({ kind: 'k' })).toBe('rule.k');
      expect(await send({})).toBe('');
    });

    it('types payments_a events from the payload `type` and keys them by payload `id`', async () => {
      const { endpoint: pay, signingSecret: ps } = await endpoint({ provider: 'payments_a' });
      const body = JSON.stringify({ id: 'evt_typed', type: 'invoice.paid' });
      const t = Math.floor(Date.now() / 1000);
      const res = await postHook(api.baseUrl, pay.slug, body, { 'PaymentsA-Signature': `t=${t},v1=${hmacHex(ps, `${t}.`, body)}` });
      expect(res.status).toBe(202);
      expect(await event(res.body.event_id!)).toMatchObject({ event_type: 'invoice.paid', idempotency_key: 'evt_typed' });
    });

    it('applies changed typing rules to new events only', async () => {
      const { endpoint: ep, signingSecret: s } = await endpoint({ typingRules: [{ name: 'v1', logic: 'AND', conditions: [], parts: [{ literal: 'old' }] }] });
      const first = await postSigned(api.baseUrl, ep.slug, s, { a: 1 });
      ep.typingRules = [{ name: 'v2', logic: 'AND', conditions: [], parts: [{ literal: 'new' }, { path: 'body.a' }], separator: '-' }];
      await em.flush();
      await notifyEndpointChanged(em, ep.id);
      const second = await postSigned(api.baseUrl, ep.slug, s, { a: 2 });
      expect((await event(first.body.event_id!)).event_type).toBe('old');
      expect((await event(second.body.event_id!)).event_type).toBe('new-2');
    });
  });

  describe('idempotency', () => {
    it('answers a repeated X-Idempotency-Key with 409 and the first event id; keys are per endpoint', async () => {
      const { endpoint: ep, signingSecret: s } = await endpoint();
      const first = await postSigned(api.baseUrl, ep.slug, s, { n: 1 }, { 'X-Idempotency-Key': 'order-1' });
      expect(first.status).toBe(202);
      const again = await postSigned(api.baseUrl, ep.slug, s, { n: 2 }, { 'X-Idempotency-Key': 'order-1' });
      expect(again.status).toBe(409);
      expect(again.body.error).toMatchObject({ code: 'duplicate_event', details: { event_id: first.body.event_id } });
      expect(await count(ep.id)).toBe(1);
      const { endpoint: other, signingSecret: os } = await endpoint();
      expect((await postSigned(api.baseUrl, other.slug, os, { n: 1 }, { 'X-Idempotency-Key': 'order-1' })).status).toBe(202);
      expect((await postSigned(api.baseUrl, ep.slug, s, { n: 3 })).status).toBe(202);
      expect((await postSigned(api.baseUrl, ep.slug, s, { n: 4 })).status).toBe(202);
    });

    it('uses the provider delivery id: X-CodehostA-Delivery header, chat_a event_id, tracker_b webhookId', async () => {
      const { endpoint: plain, signingSecret: s } = await endpoint();
      expect((await postSigned(api.baseUrl, plain.slug, s, { a: 1 }, { 'X-CodehostA-Delivery': 'd-1' })).status).toBe(202);
      expect((await postSigned(api.baseUrl, plain.slug, s, { a: 1 }, { 'X-CodehostA-Delivery': 'd-1' })).status).toBe(409);
      for (const [provider, payload] of [['chat_a', { event_id: 'Ev01' }], ['tracker_b', { webhookId: 'wh-1' }]] as const) {
        const { endpoint: ep, signingSecret: ss } = await endpoint({ provider });
        expect((await postSigned(api.baseUrl, ep.slug, ss, payload)).status).toBe(202);
        const dup = await postSigned(api.baseUrl, ep.slug, ss, payload);
        expect(dup.status).toBe(409);
        expect(await count(ep.id)).toBe(1);
      }
    });

    it('is race-safe: concurrent duplicates store one event and every other request gets 409 with its id', async () => {
      const { endpoint: ep, signingSecret: s } = await endpoint();
      const results = await Promise.all(Array.from({ length: 40 }, (_, i) => postSigned(api.baseUrl, ep.slug, s, { i }, { 'X-Idempotency-Key': 'same' })));
      const accepted = results.filter((r) => r.status === 202);
      expect(accepted).toHaveLength(1);
      const conflicts = results.filter((r) => r.status === 409);
      expect(conflicts).toHaveLength(39);
      for (const c of conflicts) expect(c.body.error?.details?.event_id).toBe(accepted[0].body.event_id);
      expect(await count(ep.id)).toBe(1);
    });

    it('mixes duplicates and fresh keys in concurrent batches without confusing them', async () => {
      const { endpoint: ep, signingSecret: s } = await endpoint();
      const results = await Promise.all(Array.from({ length: 60 }, (_, i) => postSigned(api.baseUrl, ep.slug, s, { i }, { 'X-Idempotency-Key': `k-${i % 20}` })));
      expect(results.filter((r) => r.status === 202)).toHaveLength(20);
      expect(results.filter((r) => r.status === 409)).toHaveLength(40);
      const rows: Array<{ id: string; idempotency_key: string }> = await em.getConnection().execute('select id, idempotency_key from events where endpoint_id = ?', [ep.id]);
      const idByKey = new Map(rows.map((r) => [r.idempotency_key, r.id]));
      results.forEach((r, i) => expect(r.body.event_id ?? r.body.error?.details?.event_id).toBe(idByKey.get(`k-${i % 20}`)));
    });
  });

  describe('filters', () => {
    it('stores events no enabled group matches as filtered, with no hand-off; others as received', async () => {
      const { endpoint: ep, signingSecret: s } = await endpoint();
      await createFilterGroup(em, ep, {
        logic: 'AND',
        conditions: [
          { field: 'body.action', operator: 'eq', value: 'opened' },
          { field: 'header.x-env', operator: 'regex', value: '^prod(-\\w+)?$' },
        ],
      });
      await createFilterGroup(em, ep, { logic: 'OR', conditions: [{ field: 'body.labels.0.name', operator: 'eq', value: 'urgent' }, { field: 'body.force', operator: 'exists' }] });
      await createFilterGroup(em, ep, { isEnabled: false, conditions: [] });
      await notifyEndpointChanged(em, ep.id);
      const statusOf = async (payload: unknown, headers: Record<string, string> = {}) => {
        const res = await postSigned(api.baseUrl, ep.slug, s, payload, headers);
        expect(res.status).toBe(202);
        return (await event(res.body.event_id!)).status;
      };
      expect(await statusOf({ action: 'opened' }, { 'X-ENV': 'prod-eu' })).toBe('received');
      expect(await statusOf({ action: 'opened' }, { 'X-Env': 'staging' })).toBe('filtered');
      expect(await statusOf({ action: 'closed', labels: [{ name: 'urgent' }] })).toBe('received');
      expect(await statusOf({ action: 'closed', force: '' })).toBe('filtered');
      expect(await statusOf({ action: 'closed', force: 'yes' })).toBe('received');
      expect(await statusOf({ action: 'closed' })).toBe('filtered');
    });

    it('passes everything when the endpoint has no groups', async () => {
      const { endpoint: ep, signingSecret: s } = await endpoint();
      const res = await postSigned(api.baseUrl, ep.slug, s, { anything: true });
      expect((await event(res.body.event_id!)).status).toBe('received');
    });

    it('treats a stored invalid regex as not matching instead of failing the request', async () => {
      const { endpoint: ep, signingSecret: s } = await endpoint();
      await createFilterGroup(em, ep, { conditions: [{ field: 'body.a', operator: 'regex', value: '(unclosed' }] });
      await notifyEndpointChanged(em, ep.id);
      const res = await postSigned(api.baseUrl, ep.slug, s, { a: '(unclosed' });
      expect(res.status).toBe(202);
      expect((await event(res.body.event_id!)).status).toBe('filtered');
    });

    it('runs a catastrophic-backtracking pattern in linear time', async () => {
      const { endpoint: ep, signingSecret: s } = await endpoint();
      await createFilterGroup(em, ep, { conditions: [{ field: 'body.s', operator: 'regex', value: '^(a+)+$' }] });
      await notifyEndpointChanged(em, ep.id);
      const res = await postSigned(api.baseUrl, ep.slug, s, { s: `${'a'.repeat(100_000)}!` });
      expect(res.status).toBe(202);
      expect((await event(res.body.event_id!)).status).toBe('filtered');
    });
  });
});

describe('ingress: a row PostgreSQL refuses', () => {
  it('fails only its own request (400), not the others committed with it', async () => {
    const tc = await createTestContainer();
    const server = await startApiServer(tc.container, 0);
    try {
      const em = tc.container.orm.em.fork();
      const { project } = await createWorkspace(em, { plan: 'growth' });
      const { endpoint: ep, signingSecret: s } = await createEndpoint(tc.container, em, project, { isIntegration: true });
      // Valid for JSON.parse, refused by PostgreSQL's json parser (nesting beyond its stack depth limit).
      const bad = `{"deep":${'['.repeat(200_000)}${']'.repeat(200_000)}}`;
      const requests = Array.from({ length: 30 }, (_, i) =>
        i === 15 ? postHook(server.url, ep.slug, bad, { 'X-Hub-Signature-256': `sha256=${hmacHex(s, bad)}` }) : postSigned(server.url, ep.slug, s, { i }),
      );
      const results = await Promise.all(requests);
      expect(results[15].status).toBe(400);
      expect(results.filter((r) => r.status === 202)).toHaveLength(29);
    } finally {
      await server.close();
      await tc.close();
    }
  });
});
