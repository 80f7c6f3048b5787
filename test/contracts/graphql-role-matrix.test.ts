import {
  getNamedType,
  type GraphQLArgument,
  GraphQLEnumType,
  GraphQLInputObjectType,
  type GraphQLInputType,
  GraphQLList,
  GraphQLNonNull,
  type GraphQLScalarType,
  isLeafType,
} from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import type { AccessRequirement } from '../../src/auth/access';
import { uuidv7 } from '../../src/common/ids';
import type { Role } from '../../src/common/types';
import { buildRelaySchema } from '../../src/graphql/schema';
import { scopedRequirements } from '../../src/graphql/scoped';
import { gql, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace, type Workspace } from '../support/factories';
import { createApiKey } from '../support/ingress-helpers';
import { CALLERS, declared, expectedFor } from './access-matrix';

/**
 * Every GraphQL mutation, called by every role and by a project API key in a
 * workspace of its own, with arguments made up from their types: 403 naming
 * the role exactly where the mutation's `@Scoped` requirement and docs/concepts.md#organizations-projects-and-roles
 * say. A mutation without `@Scoped` counts as public.
 */
function sample(type: GraphQLInputType, name: string, ws: Workspace): unknown {
  if (type instanceof GraphQLNonNull) return sample(type.ofType, name, ws);
  if (type instanceof GraphQLList) return [];
  if (type instanceof GraphQLEnumType) return type.getValues()[0].value;
  if (type instanceof GraphQLInputObjectType) {
    const fields = Object.values(type.getFields()).filter((f) => f.type instanceof GraphQLNonNull);
    return Object.fromEntries(fields.map((f) => [f.name, sample(f.type, f.name, ws)]));
  }
  const scalar = (type as GraphQLScalarType).name;
  if (name === 'projectId') return ws.project.id;
  if (name === 'organizationId') return ws.organization.id;
  if (scalar === 'ID') return uuidv7();
  if (scalar === 'String') return 'x';
  if (scalar === 'Int' || scalar === 'Float') return 1;
  if (scalar === 'Boolean') return false;
  return {};
}

const PUBLIC = new Set(['signup', 'login', 'refreshToken', 'logout', 'startOAuthSignIn', 'completeOAuthSignIn', 'exchangeOAuthCode']);
const USER = new Set(['updateMe', 'createOrganization', 'acceptInvite', 'completeOAuthConnection']);

/** The roles table (docs/concepts.md#organizations-projects-and-roles) by the mutation's name: organizations' plan and deletion are the owner's; members, invites, projects the admin's; the rest a developer's. */
function rulingFor(name: string): string {
  if (PUBLIC.has(name)) return 'public';
  if (USER.has(name)) return 'user';
  if (name === 'changePlan' || name === 'deleteOrganization') return 'owner';
  if (/Organization|Member|Invite|Project/.test(name)) return 'admin';
  return 'write';
}

describe('role matrix of the GraphQL mutations', () => {
  let api: TestApi;
  const mutations: Array<{ name: string; args: readonly GraphQLArgument[]; leaf: boolean; access: AccessRequirement }> = [];

  beforeAll(async () => {
    api = await startTestApi();
    const schema = await buildRelaySchema();
    const metadata = getMetadataStorage().mutations;
    for (const field of Object.values(schema.getMutationType()!.getFields())) {
      const meta = metadata.find((m) => m.schemaName === field.name);
      const access = meta && scopedRequirements.get(meta.target)?.get(meta.methodName);
      if (!access) throw new Error(`mutation ${field.name} declares no @Scoped access (use { scope: 'public' } if it really is public)`);
      mutations.push({ name: field.name, args: field.args, leaf: isLeafType(getNamedType(field.type)), access });
    }
  });
  afterAll(() => api.close());

  it('declares on every mutation the access docs/concepts.md#organizations-projects-and-roles gives it', () => {
    expect(mutations.length).toBeGreaterThan(20);
    const mismatches = mutations.filter((m) => declared(m.access) !== rulingFor(m.name)).map((m) => `${m.name}: declares ${declared(m.access)}, the roles table says ${rulingFor(m.name)}`);
    expect(mismatches).toEqual([]);
  });

  it('answers 403 with the needed role exactly where the roles table says, for every mutation and caller', async () => {
    const failures: string[] = [];
    for (const m of mutations) {
      for (const caller of CALLERS) {
        const em = api.container.orm.em.fork();
        const ws = await createWorkspace(em, { role: caller === 'api_key' ? 'owner' : (caller as Role) });
        const token = caller === 'api_key' ? (await createApiKey(em, ws.project)).key : await tokenFor(api.container, ws.user.id);
        const variables = Object.fromEntries(m.args.map((a) => [a.name, sample(a.type, a.name, ws)]));
        const signature = m.args.length ? `(${m.args.map((a) => `$${a.name}: ${a.type.toString()}`).join(', ')})` : '';
        const call = m.args.length ? `(${m.args.map((a) => `${a.name}: $${a.name}`).join(', ')})` : '';
        const res = await gql(api.baseUrl, `mutation${signature} { ${m.name}${call}${m.leaf ? '' : ' { __typename }'} }`, variables, { token, projectId: ws.project.id });
        const error = res.errors?.[0]?.extensions;
        const got =
          error?.code === 'insufficient_role'
            ? `403 insufficient_role ${error.details?.required_role}`
            : error?.code === 'user_session_required'
              ? '403 user_session_required'
              : // A public mutation may refuse what it was sent (a bad refresh token is 401); that is not about roles.
                (error?.status === 401 && m.access.scope !== 'public') || error?.code === 'graphql_validation_failed'
                ? `${error.code}: ${res.errors?.[0].message}`
                : 'allowed';
        const e = expectedFor(m.access, caller);
        const want = e.allowed ? 'allowed' : e.code === 'insufficient_role' ? `403 insufficient_role ${e.requiredRole}` : '403 user_session_required';
        if (got !== want) failures.push(`${m.name} as ${caller}: expected ${want}, got ${got}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
