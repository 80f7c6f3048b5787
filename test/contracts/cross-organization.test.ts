import { isUuid, uuidv7 } from '../../src/common/ids';
import { v1Routes } from '../../src/http/v1';
import { MessageTemplate } from '../../src/templates/message-template.entity';
import { Transform } from '../../src/transforms/transform.entity';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { insertDelivery } from '../support/delivery-fixtures';
import { createDestination, createEndpoint, createWorkspace, insertEvent, linkEndpoint, type Workspace } from '../support/factories';
import { createApiKey, createFilterGroup } from '../support/ingress-helpers';

/**
 * Organization A holds one of everything; organization B (a user who owns B,
 * and B's API key) asks for A's ids on every `/v1` GET route and through
 * GraphQL. B must never get A's data: only 404 (or 403 where API keys may not
 * go), and no answer may contain an id of A other than the one asked for, or
 * A's payload marker. Generated from `v1Routes`, so new routes are covered.
 */
const MARKER = 'org-a-secret-marker';
const reads = v1Routes.filter((r) => r.method === 'get' && r.access.scope !== 'public');

describe('organizations never see each other’s data', () => {
  let api: TestApi;
  let a: Workspace;
  let b: Workspace;
  const callers: Array<{ name: string; token: string }> = [];
  let aIds: string[] = [];
  const parents = { endpoint: '', destination: '', group: '' };

  beforeAll(async () => {
    // Thousands of requests from two credentials: the management rate limit is not what this tests.
    api = await startTestApi({ RELAY_API_RATE_LIMIT: '0' });
    const em = api.container.orm.em.fork();
    a = await createWorkspace(em);
    b = await createWorkspace(em);
    const { endpoint } = await createEndpoint(api.container, em, a.project);
    const destination = await createDestination(api.container, em, a.project, { webhookUrl: `https://${MARKER}.example/hook`, signingSecret: MARKER });
    const link = await linkEndpoint(em, endpoint, destination);
    const group = await createFilterGroup(em, endpoint, { conditions: [{ field: 'body.kind', operator: 'eq', value: MARKER }] });
    const template = em.create(MessageTemplate, { project: a.project, name: MARKER, config: { title: MARKER } });
    const transform = em.create(Transform, { project: a.project, name: MARKER, expression: `"${MARKER}"` });
    await em.flush();
    const { apiKey } = await createApiKey(em, a.project);
    const eventId = await insertEvent(api.container, endpoint, { payload: { kind: MARKER }, headers: { 'x-marker': MARKER } });
    const delivery = await insertDelivery(api.container, { eventId, destinationId: destination.id, status: 'failed', deadLettered: true, attempts: [{ status: 'failed', statusCode: 500 }] });
    const known = [a.organization.id, a.project.id, a.user.id, endpoint.id, destination.id, link.id, group.id, template.id, transform.id, apiKey.id, eventId, delivery.deliveryId, ...delivery.attemptIds];

    // Whatever else A can list (resources added later are picked up here).
    const aToken = await tokenFor(api.container, a.user.id);
    const listed: string[] = [];
    for (const r of reads.filter((x) => !/:(?!projectId|organizationId)/.test(x.path))) {
      const path = r.path.replace(':projectId', a.project.id).replace(':organizationId', a.organization.id);
      const res = await rest(api.baseUrl, 'GET', path, { token: aToken, projectId: a.project.id });
      for (const item of res.body?.data ?? []) if (isUuid(item.id)) listed.push(item.id);
    }
    aIds = [...new Set([...known, ...listed])];
    Object.assign(parents, { endpoint: endpoint.id, destination: destination.id, group: group.id });

    callers.push({ name: 'owner of B', token: await tokenFor(api.container, b.user.id) });
    callers.push({ name: 'API key of B', token: (await createApiKey(em, b.project)).key });
  });
  afterAll(() => api.close());

  function leaks(text: string, asked: string[]): string[] {
    return [MARKER, ...aIds.filter((id) => !asked.includes(id))].filter((s) => text.includes(s));
  }

  it('finds one of each resource in organization A to ask for', () => {
    expect(aIds.length).toBeGreaterThanOrEqual(14);
  });

  it('answers every GET of A’s ids with 404 (or 403), never with A’s data', async () => {
    const failures: string[] = [];
    for (const route of reads) {
      const names = [...route.path.matchAll(/:([A-Za-z_]+)/g)].map((m) => m[1]).filter((n) => n !== 'projectId' && n !== 'organizationId');
      // Each id parameter takes every id of A; with two, the other one is A's real parent or child (endpoint, destination, filter group).
      const combos: string[][] =
        names.length === 0 ? [[]] : names.length === 1 ? aIds.map((id) => [id]) : aIds.flatMap((x) => [[parents.endpoint, x], [x, parents.destination], [x, parents.group]]);
      for (const combo of combos) {
        let i = 0;
        const path = route.path.replace(/:([A-Za-z_]+)/g, (_m, n: string) => (n === 'projectId' ? a.project.id : n === 'organizationId' ? a.organization.id : combo[i++]));
        for (const caller of callers) {
          // Both with A's project selected and with the caller's own.
          for (const projectId of [a.project.id, undefined]) {
            const res = await rest(api.baseUrl, 'GET', path, { token: caller.token, projectId });
            // A 404 may name what was asked for (the ids in the path, the selected project); nothing else.
            const asked = [...combo, ...(projectId ? [projectId] : []), ...(route.path.includes(':projectId') ? [a.project.id] : []), ...(route.path.includes(':organizationId') ? [a.organization.id] : [])];
            const leaked = leaks(res.text, asked);
            const isList = Array.isArray(res.body?.data);
            const ok = res.status === 404 || res.status === 403 || (res.status === 200 && names.length === 0 && !route.path.includes(':') && isList) || (res.status === 200 && ['/v1/me', '/v1/metrics', '/v1/issues/counts'].includes(route.path));
            if (!ok || leaked.length > 0) failures.push(`${caller.name} GET ${path} (X-Project-Id ${projectId ? 'A' : 'own'}): ${res.status} leaked [${leaked.join(', ')}]`);
          }
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('B’s lists filtered by A’s ids return nothing of A (B’s own rows, or nothing)', async () => {
    const token = callers[0].token;
    const failures: string[] = [];
    for (const route of reads.filter((r) => !r.path.includes(':'))) {
      for (const filter of ['endpoint_id', 'destination_id', 'event_id', 'delivery_id']) {
        for (const id of aIds) {
          const res = await rest(api.baseUrl, 'GET', `${route.path}?${filter}=${id}`, { token, projectId: b.project.id });
          const leaked = leaks(res.text, [id]);
          if (leaked.length > 0) failures.push(`GET ${route.path}?${filter}=${id}: leaked [${leaked.join(', ')}]`);
        }
      }
    }
    expect(failures).toEqual([]);
  });

  it('GraphQL: A’s project is not found for B, and A’s event is not found in B’s project', async () => {
    const token = callers[0].token;
    const [eventId] = aIds.filter((id) => id !== a.project.id);
    for (const query of [
      'query($p: ID) { events(projectId: $p) { data { id } } }',
      'query($p: ID) { deliveries(projectId: $p) { data { id } } }',
      'query($p: ID) { deadLetters(projectId: $p) { data { id } } }',
      'query($p: ID) { deliveryAttempts(projectId: $p) { data { id } } }',
    ]) {
      const res = await gql(api.baseUrl, query, { p: a.project.id }, { token });
      expect(res.errors?.[0].extensions?.code).toBe('not_found');
      expect(leaks(res.text, [a.project.id])).toEqual([]);
    }
    for (const id of [...aIds, eventId, uuidv7()]) {
      const res = await gql(api.baseUrl, 'query($id: ID!) { event(id: $id) { id payload } delivery(id: $id) { id } }', { id }, { token });
      expect(res.data ?? null).toBeNull();
      expect(leaks(res.text, [id])).toEqual([]);
    }
  });
});
