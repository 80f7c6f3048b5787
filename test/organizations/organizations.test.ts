import { Invite } from '../../src/organizations/invite.entity';
import { startTestApi, type TestApi } from '../support/api';
import { PASSWORD, RecordingClient, type Session, signup, uniqueEmail } from '../support/accounts';

describe('organizations, members and invites over REST and GraphQL', () => {
  let api: TestApi;
  let client: RecordingClient;
  let owner: Session;
  let orgId: string;
  let stranger: Session;
  const inviteTokens: string[] = [];

  beforeAll(async () => {
    api = await startTestApi();
    client = new RecordingClient(api.baseUrl);
    owner = await signup(client);
    stranger = await signup(client);
    orgId = (await client.rest('GET', '/v1/organizations', { token: owner.access_token })).body.data[0].id;
  });
  afterAll(async () => {
    const hashes = (await api.container.orm.em.fork().find(Invite, {})).map((i) => i.tokenHash);
    client.expectNoSecrets([...hashes, PASSWORD]);
    for (const token of inviteTokens) expect(client.bodies.filter((b) => b.includes(token))).toHaveLength(1);
    await api.close();
  });

  /** Invites `email` with `role` and signs up through the invite; returns the new member's session. */
  async function join(role: string, by: Session = owner, org = orgId): Promise<Session> {
    const email = uniqueEmail(role);
    const invite = await client.rest('POST', `/v1/organizations/${org}/invites`, { token: by.access_token, body: { email, role } });
    expect(invite.status).toBe(201);
    inviteTokens.push(invite.body.token);
    return signup(client, email, { invite_token: invite.body.token });
  }

  const memberId = async (userId: string, org = orgId) =>
    (await client.rest('GET', `/v1/organizations/${org}/members?limit=200`, { token: owner.access_token })).body.data.find((m: { user_id: string }) => m.user_id === userId).id as string;

  it('creates, lists (paginated), gets, renames, changes plan and deletes organizations', async () => {
    const a = await client.rest('POST', '/v1/organizations', { token: owner.access_token, body: { name: 'Acme' } });
    expect(a.status).toBe(201);
    expect(a.body).toMatchObject({ name: 'Acme', plan: 'free', role: 'owner' });
    const b = await client.gql('mutation { createOrganization(name: "Beta") { id name role plan } }', {}, { token: owner.access_token });
    expect(b.data.createOrganization).toMatchObject({ name: 'Beta', role: 'owner', plan: 'free' });

    const page1 = await client.rest('GET', '/v1/organizations?limit=2', { token: owner.access_token });
    expect(page1.body.data.map((o: { name: string }) => o.name)).toEqual(['Beta', 'Acme']);
    const page2 = await client.gql('query($c: String) { organizations(limit: 2, cursor: $c) { data { id name } nextCursor } }', { c: page1.body.next_cursor }, { token: owner.access_token });
    expect(page2.data.organizations).toEqual({ data: [{ id: orgId, name: 'Default' }], nextCursor: null });

    expect((await client.rest('GET', `/v1/organizations/${a.body.id}`, { token: owner.access_token })).body.name).toBe('Acme');
    const renamed = await client.rest('PATCH', `/v1/organizations/${a.body.id}`, { token: owner.access_token, body: { name: 'Acme Inc' } });
    expect(renamed.body.name).toBe('Acme Inc');
    const g = await client.gql('mutation($id: ID!) { renameOrganization(organizationId: $id, name: "Acme Two") { name } }', { id: a.body.id }, { token: owner.access_token });
    expect(g.data.renameOrganization.name).toBe('Acme Two');

    const plan = await client.rest('PUT', `/v1/organizations/${a.body.id}/plan`, { token: owner.access_token, body: { plan: 'team' } });
    expect(plan.body.plan).toBe('team');
    const gPlan = await client.gql('mutation($id: ID!) { changePlan(organizationId: $id, plan: "growth") { plan } }', { id: a.body.id }, { token: owner.access_token });
    expect(gPlan.data.changePlan.plan).toBe('growth');
    const badPlan = await client.rest('PUT', `/v1/organizations/${a.body.id}/plan`, { token: owner.access_token, body: { plan: 'platinum' } });
    expect(badPlan.status).toBe(400);
    expect(badPlan.body.error.details.fields[0]).toMatchObject({ field: 'plan', message: expect.stringContaining('free, team, growth') });

    expect((await client.rest('DELETE', `/v1/organizations/${a.body.id}`, { token: owner.access_token })).status).toBe(204);
    expect((await client.rest('GET', `/v1/organizations/${a.body.id}`, { token: owner.access_token })).status).toBe(404);
    const gDel = await client.gql('mutation($id: ID!) { deleteOrganization(organizationId: $id) }', { id: b.data.createOrganization.id }, { token: owner.access_token });
    expect(gDel.data.deleteOrganization).toBe(true);
  });

  it('answers 400, 401 and 404 (another organization) the same on both transports', async () => {
    expect((await client.rest('POST', '/v1/organizations', { token: owner.access_token, body: { name: '' } })).body.error.details.fields[0].field).toBe('name');
    expect((await client.rest('GET', '/v1/organizations')).status).toBe(401);
    const g401 = await client.gql('{ organizations { data { id } } }');
    expect(g401.errors?.[0].extensions).toMatchObject({ code: 'unauthenticated', status: 401 });

    for (const path of [`/v1/organizations/${orgId}`, `/v1/organizations/${orgId}/members`, `/v1/organizations/${orgId}/invites`]) {
      const res = await client.rest('GET', path, { token: stranger.access_token });
      expect([path, res.status]).toEqual([path, 404]);
    }
    expect((await client.rest('GET', '/v1/organizations/not-a-uuid', { token: owner.access_token })).status).toBe(400);
    const g404 = await client.gql('query($id: ID!) { members(organizationId: $id) { data { email } } }', { id: orgId }, { token: stranger.access_token });
    expect(g404.errors?.[0].extensions).toMatchObject({ code: 'not_found', status: 404 });
    const theirs = await client.rest('GET', '/v1/organizations', { token: stranger.access_token });
    expect(theirs.body.data.map((o: { id: string }) => o.id)).not.toContain(orgId);
  });

  it('invites: signup through an invite joins with the role and no default workspace', async () => {
    const dev = await join('developer');
    const orgs = await client.rest('GET', '/v1/organizations', { token: dev.access_token });
    expect(orgs.body.data).toEqual([expect.objectContaining({ id: orgId, role: 'developer' })]);
    const projects = await client.rest('GET', '/v1/projects', { token: dev.access_token });
    expect(projects.body.data.every((p: { organization_id: string }) => p.organization_id === orgId)).toBe(true);

    const list = await client.rest('GET', `/v1/organizations/${orgId}/invites`, { token: owner.access_token });
    expect(list.body.data[0]).toMatchObject({ status: 'accepted', role: 'developer', invited_by: owner.user.id });
    expect(list.body.data[0]).not.toHaveProperty('token');
  });

  it('invites: accept when signed in, email must match, single use, expiry, revoke, 409s', async () => {
    const email = uniqueEmail('later');
    const existing = await signup(client, email);
    const g = await client.gql('mutation($id: ID!, $e: String!) { createInvite(organizationId: $id, email: $e, role: "viewer") { id token status } }', { id: orgId, e: email }, { token: owner.access_token });
    const token = g.data.createInvite.token as string;
    inviteTokens.push(token);

    const wrongUser = await client.rest('POST', '/v1/invites/accept', { token: stranger.access_token, body: { token } });
    expect(wrongUser.status).toBe(403);
    expect(wrongUser.body.error.code).toBe('invite_email_mismatch');
    const accepted = await client.gql('mutation($t: String!) { acceptInvite(token: $t) { role organizationId } }', { t: token }, { token: existing.access_token });
    expect(accepted.data.acceptInvite).toEqual({ role: 'viewer', organizationId: orgId });
    const again = await client.rest('POST', '/v1/invites/accept', { token: existing.access_token, body: { token } });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('invite_already_used');

    const dup = await client.rest('POST', `/v1/organizations/${orgId}/invites`, { token: owner.access_token, body: { email, role: 'viewer' } });
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe('already_member');

    const takenSignup = await client.rest('POST', '/v1/auth/signup', { body: { email, password: PASSWORD } });
    expect(takenSignup.status).toBe(409);

    const expiring = await client.rest('POST', `/v1/organizations/${orgId}/invites`, { token: owner.access_token, body: { email: uniqueEmail('exp'), role: 'viewer' } });
    inviteTokens.push(expiring.body.token);
    await api.container.orm.em.fork().nativeUpdate(Invite, { id: expiring.body.id }, { expiresAt: new Date(Date.now() - 1000) });
    const expired = await client.rest('POST', '/v1/auth/signup', { body: { email: expiring.body.email, password: PASSWORD, invite_token: expiring.body.token } });
    expect(expired.status).toBe(410);
    expect(expired.body.error.code).toBe('invite_expired');
    expect((await client.rest('GET', `/v1/organizations/${orgId}/invites/${expiring.body.id}`, { token: owner.access_token })).body.status).toBe('expired');

    const revocable = await client.rest('POST', `/v1/organizations/${orgId}/invites`, { token: owner.access_token, body: { email: uniqueEmail('rev'), role: 'admin' } });
    inviteTokens.push(revocable.body.token);
    expect((await client.rest('DELETE', `/v1/organizations/${orgId}/invites/${revocable.body.id}`, { token: owner.access_token })).status).toBe(204);
    const afterRevoke = await client.rest('POST', '/v1/auth/signup', { body: { email: revocable.body.email, password: PASSWORD, invite_token: revocable.body.token } });
    expect(afterRevoke.status).toBe(404);
    expect((await client.rest('POST', `/v1/organizations/${orgId}/invites`, { token: owner.access_token, body: { email: 'bad', role: 'boss' } })).body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['email', 'role']);
  });

  it('invite link: the created invite carries the dashboard URL; lookup answers what it is for, with the accept errors, on both transports', async () => {
    const email = uniqueEmail('link');
    const created = await client.rest('POST', `/v1/organizations/${orgId}/invites`, { token: owner.access_token, body: { email, role: 'developer' } });
    const token = created.body.token as string;
    inviteTokens.push(token);
    expect(created.body.url).toBe(`${api.container.config.publicBaseUrl}/invite/${token}`);

    const preview = { organization_id: orgId, organization_name: 'Default', email, role: 'developer', expires_at: created.body.expires_at };
    const rest = await client.rest('POST', '/v1/invites/lookup', { body: { token } });
    expect([rest.status, rest.body]).toEqual([200, preview]);
    const gql = await client.gql('query($t: String!) { invitePreview(token: $t) { organizationId organizationName email role expiresAt } }', { t: token });
    expect(gql.data.invitePreview).toEqual({ organizationId: orgId, organizationName: 'Default', email, role: 'developer', expiresAt: created.body.expires_at });

    // Unknown (or revoked), expired, used: the same codes and messages as accepting, on both transports.
    const lookup = async (t: string) => {
      const r = await client.rest('POST', '/v1/invites/lookup', { body: { token: t } });
      const g = await client.gql('query($t: String!) { invitePreview(token: $t) { email } }', { t });
      expect(g.errors?.[0].extensions).toMatchObject({ code: r.body.error.code, status: r.status });
      // Input errors name the transport's part ("body" or "arguments"); the rules' messages are the same.
      if (r.status !== 400) expect(g.errors?.[0].message).toBe(r.body.error.message);
      return { status: r.status, code: r.body.error.code, message: r.body.error.message };
    };
    expect(await lookup('inv_nope')).toEqual({ status: 404, code: 'not_found', message: 'This invite was revoked or does not exist: ask for a new one.' });
    expect((await lookup('')).status).toBe(400);
    await api.container.orm.em.fork().nativeUpdate(Invite, { id: created.body.id }, { expiresAt: new Date(Date.now() - 1000) });
    expect(await lookup(token)).toMatchObject({ status: 410, code: 'invite_expired' });
    await api.container.orm.em.fork().nativeUpdate(Invite, { id: created.body.id }, { expiresAt: new Date(Date.now() + 60_000) });
    await signup(client, email, { invite_token: token });
    expect(await lookup(token)).toMatchObject({ status: 409, code: 'invite_already_used' });
    const revocable = await client.rest('POST', `/v1/organizations/${orgId}/invites`, { token: owner.access_token, body: { email: uniqueEmail('rev2'), role: 'viewer' } });
    inviteTokens.push(revocable.body.token);
    await client.rest('DELETE', `/v1/organizations/${orgId}/invites/${revocable.body.id}`, { token: owner.access_token });
    expect(await lookup(revocable.body.token)).toMatchObject({ status: 404, message: expect.stringContaining('revoked') });
  });

  it('invites end with their sender’s authority: removal revokes all of a member’s pending invites, a demotion those the new role could not send', async () => {
    const invite = async (by: Session, role: string) => {
      const res = await client.rest('POST', `/v1/organizations/${orgId}/invites`, { token: by.access_token, body: { email: uniqueEmail('pending'), role } });
      expect(res.status).toBe(201);
      inviteTokens.push(res.body.token);
      return res.body as { id: string; email: string; token: string };
    };
    const usable = async (i: { email: string; token: string }) => {
      const res = await client.rest('POST', '/v1/invites/lookup', { body: { token: i.token } });
      return res.status === 200;
    };
    const pending = async () =>
      (await client.rest('GET', `/v1/organizations/${orgId}/invites?limit=200`, { token: owner.access_token })).body.data.map((i: { id: string }) => i.id) as string[];

    // Removal: every pending invite the admin sent is revoked; an accepted one stays a membership; the owner's stay.
    const removed = await join('admin');
    const [sentA, sentB, ownersOwn] = [await invite(removed, 'developer'), await invite(removed, 'admin'), await invite(owner, 'viewer')];
    expect((await client.rest('DELETE', `/v1/organizations/${orgId}/members/${await memberId(removed.user.id)}`, { token: owner.access_token })).status).toBe(204);
    expect(await usable(sentA)).toBe(false);
    expect(await usable(sentB)).toBe(false);
    expect(await usable(ownersOwn)).toBe(true);
    expect(await pending()).not.toEqual(expect.arrayContaining([sentA.id]));
    const refused = await client.rest('POST', '/v1/auth/signup', { body: { email: sentA.email, password: PASSWORD, invite_token: sentA.token } });
    expect(refused.status).toBe(404);

    // Demotion: an admin made developer can send none, so none of theirs survive; an owner made admin keeps all but owner invites.
    const demoted = await join('admin');
    const byDemoted = await invite(demoted, 'viewer');
    const gDemote = await client.gql('mutation($o: ID!, $m: ID!) { changeMemberRole(organizationId: $o, memberId: $m, role: "developer") { role } }', { o: orgId, m: await memberId(demoted.user.id) }, {
      token: owner.access_token,
    });
    expect(gDemote.data.changeMemberRole.role).toBe('developer');
    expect(await usable(byDemoted)).toBe(false);
    const coOwner = await join('owner');
    const [asOwner, asAdmin] = [await invite(coOwner, 'owner'), await invite(coOwner, 'admin')];
    const stepDown = await client.rest('PATCH', `/v1/organizations/${orgId}/members/${await memberId(coOwner.user.id)}`, { token: owner.access_token, body: { role: 'admin' } });
    expect(stepDown.body.role).toBe('admin');
    expect(await usable(asOwner)).toBe(false);
    expect(await usable(asAdmin)).toBe(true);
    // Not a demotion: nothing is revoked.
    const promoted = await client.rest('PATCH', `/v1/organizations/${orgId}/members/${await memberId(coOwner.user.id)}`, { token: owner.access_token, body: { role: 'owner' } });
    expect(promoted.body.role).toBe('owner');
    expect(await usable(asAdmin)).toBe(true);
    expect(await usable(ownersOwn)).toBe(true);
    for (const member of [demoted, coOwner]) {
      await client.rest('DELETE', `/v1/organizations/${orgId}/members/${await memberId(member.user.id)}`, { token: owner.access_token });
    }
  });

  it('members: admins manage non-owners only, owners manage everyone, the last owner stays', async () => {
    const admin = await join('admin');
    const viewer = await join('viewer');
    const viewerId = await memberId(viewer.user.id);
    const ownerId = await memberId(owner.user.id);

    const promoted = await client.rest('PATCH', `/v1/organizations/${orgId}/members/${viewerId}`, { token: admin.access_token, body: { role: 'developer' } });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ role: 'developer', user_id: viewer.user.id, email: viewer.user.email });

    const toOwner = await client.rest('PATCH', `/v1/organizations/${orgId}/members/${viewerId}`, { token: admin.access_token, body: { role: 'owner' } });
    expect(toOwner.status).toBe(403);
    expect(toOwner.body.error.details).toEqual({ required_role: 'owner', role: 'admin' });
    const touchOwner = await client.gql('mutation($o: ID!, $m: ID!) { removeMember(organizationId: $o, memberId: $m) }', { o: orgId, m: ownerId }, { token: admin.access_token });
    expect(touchOwner.errors?.[0].extensions).toMatchObject({ code: 'insufficient_role', status: 403, details: { required_role: 'owner' } });
    const byViewer = await client.rest('DELETE', `/v1/organizations/${orgId}/members/${viewerId}`, { token: viewer.access_token });
    expect(byViewer.status).toBe(403);
    expect(byViewer.body.error.details.required_role).toBe('admin');
    const planByAdmin = await client.rest('PUT', `/v1/organizations/${orgId}/plan`, { token: admin.access_token, body: { plan: 'team' } });
    expect(planByAdmin.body.error.details).toEqual({ required_role: 'owner', role: 'admin' });
    expect((await client.rest('DELETE', `/v1/organizations/${orgId}`, { token: admin.access_token })).status).toBe(403);
    expect((await client.rest('GET', `/v1/organizations/${orgId}/invites`, { token: viewer.access_token })).status).toBe(403);

    const lastOwner = await client.rest('PATCH', `/v1/organizations/${orgId}/members/${ownerId}`, { token: owner.access_token, body: { role: 'admin' } });
    expect(lastOwner.status).toBe(409);
    expect(lastOwner.body.error.code).toBe('last_owner');
    expect((await client.rest('DELETE', `/v1/organizations/${orgId}/members/${ownerId}`, { token: owner.access_token })).body.error.code).toBe('last_owner');

    const adminId = await memberId(admin.user.id);
    const gPromote = await client.gql('mutation($o: ID!, $m: ID!) { changeMemberRole(organizationId: $o, memberId: $m, role: "owner") { role } }', { o: orgId, m: adminId }, { token: owner.access_token });
    expect(gPromote.data.changeMemberRole.role).toBe('owner');
    // Two owners now: the first may step down.
    expect((await client.rest('PATCH', `/v1/organizations/${orgId}/members/${ownerId}`, { token: owner.access_token, body: { role: 'admin' } })).body.role).toBe('admin');
    expect((await client.rest('PATCH', `/v1/organizations/${orgId}/members/${ownerId}`, { token: admin.access_token, body: { role: 'owner' } })).body.role).toBe('owner');

    const list = await client.rest('GET', `/v1/organizations/${orgId}/members?limit=2`, { token: viewer.access_token });
    expect(list.body.data).toHaveLength(2);
    expect(list.body.next_cursor).toEqual(expect.any(String));
    const one = await client.gql('query($o: ID!, $m: ID!) { member(organizationId: $o, memberId: $m) { email role } }', { o: orgId, m: viewerId }, { token: viewer.access_token });
    expect(one.data.member).toEqual({ email: viewer.user.email, role: 'developer' });

    expect((await client.rest('DELETE', `/v1/organizations/${orgId}/members/${viewerId}`, { token: admin.access_token })).status).toBe(204);
    expect((await client.rest('GET', `/v1/organizations/${orgId}`, { token: viewer.access_token })).status).toBe(404);
    expect((await client.rest('GET', `/v1/organizations/${orgId}/members/${viewerId}`, { token: owner.access_token })).status).toBe(404);
  });
});
