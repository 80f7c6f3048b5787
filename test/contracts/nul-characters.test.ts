import { randomUUID } from 'node:crypto';
import { gql, rest, startTestApi, type TestApi, tokenFor } from '../support/api';
import { createWorkspace, type Workspace } from '../support/factories';

type Schema = { $ref?: string; type?: string | string[]; properties?: Record<string, Schema>; anyOf?: Schema[]; oneOf?: Schema[] };
type Operation = { parameters: Array<{ name: string; in: string; schema: Schema }>; requestBody?: { content: { 'application/json': { schema: Schema } } } };

const NUL_TEXT = 'a\u0000b';
const acceptsString = (s: Schema | undefined): boolean =>
  !!s && (s.type === 'string' || (Array.isArray(s.type) && s.type.includes('string')) || [...(s.anyOf ?? []), ...(s.oneOf ?? [])].some(acceptsString));

/**
 * A NUL character in any text input is a 400 naming the field (docs/api.md#errors),
 * never a 500 from PostgreSQL: every string field of every request body and
 * every string query parameter in the OpenAPI document, and GraphQL arguments.
 */
describe('NUL characters in text inputs', () => {
  let api: TestApi;
  let ws: Workspace;
  let token: string;
  let doc: { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };

  beforeAll(async () => {
    api = await startTestApi({ RELAY_API_RATE_LIMIT: '0' });
    ws = await createWorkspace(api.container.orm.em.fork());
    token = await tokenFor(api.container, ws.user.id);
    doc = (await rest(api.baseUrl, 'GET', '/v1/openapi.json')).body;
  });
  afterAll(() => api.close());

  const concretePath = (path: string) =>
    path.replace('{provider}', 'codehost_a').replace('{organizationId}', ws.organization.id).replace('{projectId}', ws.project.id).replace(/\{[A-Za-z]+\}/g, () => randomUUID());

  function cases(): Array<{ method: string; path: string; in: 'body' | 'query'; field: string }> {
    const found: Array<{ method: string; path: string; in: 'body' | 'query'; field: string }> = [];
    for (const [path, operations] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(operations)) {
        const ref = op.requestBody?.content['application/json'].schema;
        // Bodies are named components.
        const body = ref?.$ref ? doc.components.schemas[ref.$ref.replace('#/components/schemas/', '')] : ref;
        for (const [field, schema] of Object.entries(body?.properties ?? {})) if (acceptsString(schema)) found.push({ method, path, in: 'body', field });
        for (const p of op.parameters) if (p.in === 'query' && acceptsString(p.schema)) found.push({ method, path, in: 'query', field: p.name });
      }
    }
    return found;
  }

  it('answers 400 naming the field for every string field of every /v1 operation', async () => {
    const all = cases();
    expect(all.length).toBeGreaterThan(40);
    expect(all).toEqual(expect.arrayContaining([expect.objectContaining({ path: '/v1/auth/signup', field: 'email' }), expect.objectContaining({ path: '/v1/events', in: 'query', field: 'event_type' })]));
    const failures: string[] = [];
    for (const c of all) {
      const path = concretePath(c.path);
      const res =
        c.in === 'body'
          ? await rest(api.baseUrl, c.method.toUpperCase(), path, { token, body: { [c.field]: NUL_TEXT } })
          : await rest(api.baseUrl, c.method.toUpperCase(), `${path}?${c.field}=${encodeURIComponent(NUL_TEXT)}`, { token, body: c.method === 'get' || c.method === 'delete' ? undefined : {} });
      const fields = (res.body?.error?.details?.fields ?? []) as Array<{ field: string; message: string }>;
      if (res.status !== 400 || !fields.some((f) => f.field === c.field && f.message.includes('NUL'))) failures.push(`${c.method.toUpperCase()} ${c.path} ${c.in}.${c.field}: ${res.status} ${res.text.slice(0, 160)}`);
    }
    expect(failures).toEqual([]);
  });

  it('answers 400 naming the argument for GraphQL inputs, including those no schema parses', async () => {
    const created = await gql(api.baseUrl, 'mutation($org: ID!, $input: ProjectInput!) { createProject(organizationId: $org, input: $input) { id } }', { org: ws.organization.id, input: { name: NUL_TEXT } }, { token });
    expect(created.errors?.[0]).toMatchObject({ extensions: { code: 'invalid_input', status: 400, details: { fields: [{ field: 'input.name' }] } } });
    const login = await gql(api.baseUrl, 'mutation { login(email: "x\\u0000@example.test", password: "whatever-long") { accessToken } }');
    expect(login.errors?.[0]).toMatchObject({ message: expect.stringContaining('email'), extensions: { code: 'invalid_input', status: 400 } });
    const events = await gql(api.baseUrl, 'query($t: String) { events(eventType: $t) { data { id } } }', { t: NUL_TEXT }, { token });
    expect(events.errors?.[0]).toMatchObject({ extensions: { code: 'invalid_input', status: 400, details: { fields: [{ field: 'eventType' }] } } });
  });
});
