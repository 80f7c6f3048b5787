import { uuidv7 } from '../../src/common/ids';
import type { Role } from '../../src/common/types';
import { v1Routes } from '../../src/http/v1';
import { rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace } from '../support/factories';
import { createApiKey } from '../support/ingress-helpers';
import { CALLERS, type Caller, declared, expectedFor, requiredByRulings } from './access-matrix';

/**
 * Every mutating `/v1` route, called by every role and by a project API key,
 * each in a workspace of its own (an allowed call may really delete things):
 * 403 naming the needed role exactly where docs/concepts.md#organizations-projects-and-roles says, and never
 * elsewhere. Generated from `v1Routes`, so a new route is covered as it lands.
 */
const mutations = v1Routes.filter((r) => r.method !== 'get');

describe('role matrix of the /v1 mutations', () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await startTestApi();
  });
  afterAll(() => api.close());

  it('declares on every mutation the permission docs/concepts.md#organizations-projects-and-roles gives its resource', () => {
    const mismatches = mutations
      .map((r) => ({ route: `${r.method.toUpperCase()} ${r.path}`, tag: r.tag, declared: declared(r.access), rulings: requiredByRulings(r.method, r.path, r.tag) }))
      .filter((m) => m.declared !== m.rulings);
    expect(mismatches).toEqual([]);
  });

  /** A fresh workspace where the caller has `caller`'s role (an API key: of its project, the user being owner). */
  async function callerIn(caller: Caller) {
    const em = api.container.orm.em.fork();
    const ws = await createWorkspace(em, { role: caller === 'api_key' ? 'owner' : (caller as Role) });
    const token = caller === 'api_key' ? (await createApiKey(em, ws.project)).key : await tokenFor(api.container, ws.user.id);
    return { ws, token };
  }

  it.each(mutations.map((r) => [`${r.method.toUpperCase()} ${r.path}`, r] as const))('%s', async (_name, route) => {
    const outcomes: Record<string, string> = {};
    const expected: Record<string, string> = {};
    for (const caller of CALLERS) {
      const { ws, token } = await callerIn(caller);
      const path = route.path.replace(/:([A-Za-z_]+)/g, (_m, name: string) =>
        name === 'projectId' ? ws.project.id : name === 'organizationId' ? ws.organization.id : name === 'provider' ? 'codehost_a' : uuidv7(),
      );
      const res = await rest(api.baseUrl, route.method.toUpperCase(), path, { token, projectId: ws.project.id, body: route.body ? {} : undefined });
      const e = expectedFor(route.access, caller);
      expected[caller] = e.allowed ? 'allowed' : e.code === 'insufficient_role' ? `403 insufficient_role ${e.requiredRole}` : '403 user_session_required';
      outcomes[caller] =
        res.status === 403
          ? `403 ${res.body.error.code}${res.body.error.code === 'insufficient_role' ? ` ${res.body.error.details.required_role}` : ''}`
          : res.status === 401
            ? `401 ${res.body?.error?.code}`
            : 'allowed';
      if (res.status === 403) expect(res.body.error.message).toMatch(e.allowed ? /./ : e.code === 'insufficient_role' ? new RegExp(`needs the ${e.requiredRole} role`) : /API keys|user session/);
    }
    expect(outcomes).toEqual(expected);
  });
});
