import type { EntityManager } from '@mikro-orm/postgresql';
import { OrganizationMember } from '../../src/organizations/organization-member.entity';
import { User } from '../../src/users/user.entity';
import { type CallOptions, gql, type GraphQLResponse, rest, type RestResponse, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace, type Workspace } from '../support/factories';

/**
 * The shared setting of the resource tests: a real API server, an owner, a
 * viewer in the same organization, and a stranger in another organization.
 * Every response body is recorded, so each file can assert at the end that
 * no secret it set ever came back (docs/concepts.md#secrets).
 */

/** Distinctive secrets the tests set; none may appear in any response. */
export const SECRETS = {
  webhookPath: 'hooks/zz-secret-webhook-path-5f1c9e',
  chatWebhookPath: 'services/zz-secret-chat-path-77ab10',
  botToken: 'zz-secret-bot-token-9a8b7c6d5e4f',
  destinationSigning: 'zz-secret-dest-signing-0123456789abcdef',
  destinationRotated: 'zz-secret-dest-rotated-fedcba9876543210',
  endpointSigning: 'zz-secret-endpoint-signing-31415926',
  endpointRotated: 'zz-secret-endpoint-rotated-27182818',
};

export interface ResourceEnv {
  api: TestApi;
  owner: Workspace;
  stranger: Workspace;
  tokens: { owner: string; viewer: string; stranger: string };
  /** REST as the owner (or `opts.token`), in the owner's project unless told otherwise. */
  call<T = any>(method: string, path: string, opts?: CallOptions): Promise<RestResponse<T>>;
  query<T = any>(q: string, variables?: Record<string, unknown>, opts?: CallOptions): Promise<GraphQLResponse<T>>;
  /** Every response body seen so far. */
  bodies: string[];
  em(): EntityManager;
  close(): Promise<void>;
}

/** `overrides`: settings of the API under test (e.g. the chat platforms' API roots). */
export async function startResourceEnv(overrides: Record<string, string> = {}): Promise<ResourceEnv> {
  const api = await startTestApi(overrides);
  const em = api.container.orm.em.fork();
  const owner = await createWorkspace(em);
  const stranger = await createWorkspace(em);
  const viewer = em.create(User, { email: `viewer-${owner.organization.id}@example.test`, name: 'Viewer' });
  em.create(OrganizationMember, { organization: owner.organization, user: viewer, role: 'viewer' });
  await em.flush();
  const tokens = {
    owner: await tokenFor(api.container, owner.user.id),
    viewer: await tokenFor(api.container, viewer.id),
    stranger: await tokenFor(api.container, stranger.user.id),
  };
  const bodies: string[] = [];
  const withDefaults = (opts: CallOptions = {}): CallOptions => ({ token: tokens.owner, projectId: owner.project.id, ...opts });
  return {
    api,
    owner,
    stranger,
    tokens,
    bodies,
    async call(method, path, opts) {
      const res = await rest(api.baseUrl, method, path, withDefaults(opts));
      bodies.push(res.text);
      return res;
    },
    async query(q, variables = {}, opts) {
      const res = await gql(api.baseUrl, q, variables, withDefaults(opts));
      bodies.push(res.text);
      return res;
    },
    em: () => api.container.orm.em.fork(),
    close: () => api.close(),
  };
}

/** Asserts that none of the secrets shows up in any recorded body (also JSON-escaped). */
export function expectNoSecrets(bodies: string[], secrets: string[] = Object.values(SECRETS)): void {
  const leaks = bodies.flatMap((body) => secrets.filter((s) => body.includes(s) || body.includes(JSON.stringify(s).slice(1, -1))).map((s) => ({ secret: s, body: body.slice(0, 300) })));
  expect(leaks).toEqual([]);
}

/** Pages through a REST list with `limit`, collecting ids; checks that pages do not overlap. */
export async function collectPages(env: ResourceEnv, path: string, limit: number): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const sep = path.includes('?') ? '&' : '?';
    const res: RestResponse = await env.call('GET', `${path}${sep}limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeLessThanOrEqual(limit);
    ids.push(...res.body.data.map((r: { id: string }) => r.id));
    cursor = res.body.next_cursor;
    pages += 1;
  } while (cursor && pages < 50);
  expect(new Set(ids).size).toBe(ids.length);
  return { ids, pages };
}
