import type { Client } from 'graphql-ws';
import { issueAccessToken } from '../../src/auth/tokens';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { User } from '../../src/users/user.entity';
import { SubscriptionGate, WS_FORBIDDEN, WS_UNAUTHORIZED } from '../../src/subscriptions/subscription-access';
import { rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { PASSWORD, uniqueEmail } from '../support/accounts';
import { createEndpoint, createWorkspace, insertEvent, type Workspace } from '../support/factories';
import { eventually, liveClient, subscribe } from '../support/live-client';

const EVENTS = 'subscription($projectId: ID) { eventReceived(projectId: $projectId) { id payload } }';

describe('subscriptions end when access ends', () => {
  let api: TestApi;
  let ws: Workspace;
  let ownerToken: string;
  let endpoint: WebhookEndpoint;
  const clients: Client[] = [];

  const open = (token: string) => {
    const c = liveClient(api.baseUrl, token);
    clients.push(c.client);
    return c;
  };
  const gate = () => SubscriptionGate.for(api.container);

  /** Subscribes, proves that events arrive, and returns the subscription. */
  async function subscribedWith(token: string) {
    const before = gate().openCount;
    const live = open(token);
    const sub = subscribe(live.client, EVENTS, { projectId: ws.project.id });
    await eventually(() => gate().openCount > before);
    const first = await insertEvent(api.container, endpoint, { payload: { n: 'before' } });
    expect((await sub.next()).data.eventReceived.id).toBe(first);
    return { ...live, sub, before };
  }

  /** After access ended: the socket closed with `code` and a reason naming why, and a new event's payload never arrives. */
  async function expectEnded(live: Awaited<ReturnType<typeof subscribedWith>>, code: number, reason: RegExp) {
    expect(await live.closed).toMatchObject({ code, reason: expect.stringMatching(reason) });
    await insertEvent(api.container, endpoint, { payload: { n: 'after' } });
    const next = await live.sub.next(3000).catch(() => ({ timedOut: true }));
    expect(JSON.stringify(next)).not.toContain('after');
  }

  beforeAll(async () => {
    api = await startTestApi();
    const em = api.container.orm.em.fork();
    ws = await createWorkspace(em);
    ownerToken = await tokenFor(api.container, ws.user.id);
    endpoint = (await createEndpoint(api.container, em, ws.project)).endpoint;
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.dispose()));
    await api.close();
  });

  it('a member removed from the organization gets no further event and sees the close (4403)', async () => {
    const em = api.container.orm.em.fork();
    const user = em.create(User, { email: uniqueEmail('member'), name: 'Member' });
    const member = em.create(OrganizationMember, { organization: ws.organization.id, user, role: 'viewer' });
    await em.flush();
    const live = await subscribedWith(await tokenFor(api.container, user.id));
    const removed = await rest(api.baseUrl, 'DELETE', `/v1/organizations/${ws.organization.id}/members/${member.id}`, { token: ownerToken });
    expect(removed.status).toBe(204);
    await expectEnded(live, WS_FORBIDDEN, /^access_revoked: You no longer have access to this project/);
    await eventually(() => gate().openCount === live.before);
  });

  it('a revoked API key gets no further event and sees the close (4401)', async () => {
    const created = await rest(api.baseUrl, 'POST', '/v1/api-keys', { token: ownerToken, projectId: ws.project.id, body: { name: 'live' } });
    expect(created.status).toBe(201);
    const live = await subscribedWith(created.body.key);
    expect((await rest(api.baseUrl, 'DELETE', `/v1/api-keys/${created.body.id}`, { token: ownerToken, projectId: ws.project.id })).status).toBeLessThan(300);
    await expectEnded(live, WS_UNAUTHORIZED, /^access_revoked: The API key was revoked/);
  });

  it('an archived project ends its subscriptions (4403)', async () => {
    const em = api.container.orm.em.fork();
    const second = await createWorkspace(em);
    const token = await tokenFor(api.container, second.user.id);
    const secondEndpoint = (await createEndpoint(api.container, em, second.project)).endpoint;
    const before = gate().openCount;
    const live = open(token);
    const sub = subscribe(live.client, EVENTS, { projectId: second.project.id });
    await eventually(() => gate().openCount > before);
    const archived = await rest(api.baseUrl, 'DELETE', `/v1/projects/${second.project.id}`, { token });
    expect(archived.status).toBeLessThan(300);
    expect(await live.closed).toMatchObject({ code: WS_FORBIDDEN, reason: expect.stringMatching(/^access_revoked: The project was archived/) });
    await insertEvent(api.container, secondEndpoint, { payload: { n: 'after' } });
    expect(JSON.stringify(await sub.next(3000).catch(() => null))).not.toContain('after');
  });

  it('logout ends the subscriptions opened with that session (4401)', async () => {
    const session = (await rest(api.baseUrl, 'POST', '/v1/auth/signup', { body: { email: uniqueEmail(), password: PASSWORD } })).body;
    const em = api.container.orm.em.fork();
    em.create(OrganizationMember, { organization: ws.organization.id, user: session.user.id, role: 'viewer' });
    await em.flush();
    const live = await subscribedWith(session.access_token);
    expect((await rest(api.baseUrl, 'POST', '/v1/auth/logout', { body: { refresh_token: session.refresh_token } })).status).toBe(204);
    await expectEnded(live, WS_UNAUTHORIZED, /^session_revoked: /);
  });

  it('the access cache keeps nothing for clients that left (it held one entry per user ever subscribed)', async () => {
    const em = api.container.orm.em.fork();
    const users = [1, 2, 3].map((n) => em.create(User, { email: uniqueEmail(`leaver${n}`), name: `Leaver ${n}` }));
    for (const user of users) em.create(OrganizationMember, { organization: ws.organization.id, user, role: 'viewer' });
    await em.flush();
    const tokens = await Promise.all(users.map((u) => tokenFor(api.container, u.id)));
    const openBefore = gate().openCount;
    const cachedBefore = gate().cachedCount;
    const lives = [];
    // Each one receives an event, so its access was checked and cached.
    for (const token of tokens) lives.push(await subscribedWith(token));
    expect(gate().cachedCount).toBe(cachedBefore + users.length);
    await Promise.all(lives.map((l) => l.client.dispose()));
    await eventually(() => gate().openCount === openBefore);
    expect(gate().cachedCount).toBe(cachedBefore);
    // A client coming back is checked again (and cached while it stays).
    const back = await subscribedWith(tokens[0]);
    expect(gate().cachedCount).toBe(cachedBefore + 1);
    await back.client.dispose();
    await eventually(() => gate().cachedCount === cachedBefore);
  });

  it('an access token that expires closes the socket (4401 token_expired)', async () => {
    const { token } = await issueAccessToken({ ...api.container.config, RELAY_ACCESS_TOKEN_TTL_SECONDS: 3 }, ws.user.id);
    const live = open(token);
    subscribe(live.client, EVENTS, { projectId: ws.project.id });
    expect(await live.closed).toMatchObject({ code: WS_UNAUTHORIZED, reason: expect.stringMatching(/^token_expired: /) });
  });
});
