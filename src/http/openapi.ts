import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiPathsObject } from 'zod-openapi';
import { type ZodType, z } from 'zod';
import { pageItem } from '../common/pagination';
import { NAMED_SCHEMAS } from './openapi-components';
import { type RouteDef, successStatus } from './route';

/**
 * Builds the OpenAPI 3.1 document of `/v1` from the route definitions that are actually mounted
 * (src/http/v1.ts), so it cannot drift from them. zod-openapi converts the routes' zod schemas; every
 * body and answer is a named component (src/http/openapi-components.ts; a list's is `<Item>Page`).
 * The document is checked in as schema/openapi.json (`npm run schema:emit`).
 */
type JsonSchema = Record<string, unknown>;

const errorBody: JsonSchema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', description: 'Stable snake_case code' },
        message: { type: 'string' },
        details: { type: 'object', additionalProperties: true },
      },
    },
  },
};

/** `assertNoNulCharacters` (src/common/validation.ts) refuses a NUL in any text input: said on every input string and key. */
export const NO_NUL = '^[^\\u0000]*$';

function withoutNul(out: JsonSchema): void {
  if (out.type === 'string' && !out.format && !out.enum && out.const === undefined) {
    if (out.pattern === undefined) out.pattern = NO_NUL;
    else if (out.pattern !== NO_NUL) out.allOf = [...((out.allOf as JsonSchema[] | undefined) ?? []), { pattern: NO_NUL }];
  }
  if (out.type === 'object' && out.additionalProperties !== false && !out.propertyNames) out.propertyNames = { pattern: NO_NUL };
}

/** A body's objects take only the fields they declare (`parseInput`, src/common/validation.ts); records keep their value schema. */
function closed(out: JsonSchema): void {
  if (out.type === 'object' && out.properties && out.additionalProperties === undefined) out.additionalProperties = false;
}

/** Project-scoped operations act on the project named here (or `project_id`); needed when the caller has more than one. */
const projectHeader = {
  name: 'X-Project-Id',
  in: 'header' as const,
  required: false,
  schema: { type: 'string' as const, format: 'uuid' },
  description: 'The project to act on (or the `project_id` query parameter); required when the credential is a user with more than one project, else 400 `project_required`. API keys act on their own project.',
};

/** Each error answer once, as a named response (`components.responses`) with the `Error` body. */
const ERROR_STATUSES: Record<string, { name: string; description: string }> = {
  '400': { name: 'InvalidInput', description: 'Invalid input' },
  '401': { name: 'Unauthenticated', description: 'Missing, invalid or expired credentials (public operations: wrong password, invalid or reused refresh token)' },
  '403': { name: 'Forbidden', description: 'Authenticated, but the role is insufficient' },
  '404': { name: 'NotFound', description: 'Not found or not accessible' },
  '409': { name: 'Conflict', description: 'Conflict' },
  '413': { name: 'PayloadTooLarge', description: 'Request body over the size limit' },
  '415': { name: 'UnsupportedMediaType', description: 'Request body is not JSON' },
  '429': { name: 'RateLimited', description: 'Rate limited (see Retry-After)' },
  '431': { name: 'HeadersTooLarge', description: 'Request line and headers over the server limit (a long query string counts)' },
};

const errorResponses = Object.fromEntries(
  Object.values(ERROR_STATUSES).map(({ name, description }) => [
    name,
    { description, content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } },
  ]),
);

/** Every error status a route can answer: 403 only where a role is checked, 413/415 only where a body is read. */
function errorStatuses(def: RouteDef): string[] {
  return Object.keys(ERROR_STATUSES).filter((code) => {
    if (code === '403') return def.access.scope !== 'public';
    if (code === '413' || code === '415') return Boolean(def.body);
    return true;
  });
}

/** No body is read as `{}`: required where that is refused (always for PATCH: `empty_update`). */
function bodyRequired(def: RouteDef): boolean {
  return def.method === 'patch' || !def.body!.safeParse({}).success;
}

function operationId(def: RouteDef, path: string): string {
  return `${def.method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`;
}

/** Component names: the named schemas, a page of a named item, else one named after its operation. */
function componentNames(routes: RouteDef[]): Map<ZodType, string> {
  const names = new Map<ZodType, string>(Object.entries(NAMED_SCHEMAS).map(([name, schema]) => [schema, name]));
  const taken = new Set(names.values());
  const name = (schema: ZodType, fallback: string) => {
    if (names.has(schema)) return;
    const item = pageItem(schema);
    const candidate = item && names.has(item) ? `${names.get(item)}Page` : fallback;
    if (taken.has(candidate)) throw new Error(`OpenAPI: two schemas are named ${candidate}: name one in src/http/openapi-components.ts`);
    names.set(schema, candidate);
    taken.add(candidate);
  };
  for (const def of routes) {
    const id = operationId(def, def.path.replace(/:([A-Za-z_]+)/g, '{$1}'));
    const pascal = id[0].toUpperCase() + id.slice(1);
    if (def.body) name(def.body, `${pascal}Request`);
    if (def.response) name(def.response, `${pascal}Response`);
  }
  return names;
}

/**
 * Names the schemas the way zod-openapi reads names: an `id` in zod's global registry (the schema's
 * other metadata kept). zod-openapi then renders each in the context it is used in (request or
 * answer) as a component, with an `Output` suffix where one schema is used in both.
 */
function registerNames(routes: RouteDef[]): void {
  for (const [schema, id] of componentNames(routes)) {
    const meta = z.globalRegistry.get(schema);
    if (meta?.id !== id) z.globalRegistry.add(schema, { ...meta, id });
  }
}

export function buildOpenApiDocument(routes: RouteDef[], opts: { version: string; serverUrl: string }): JsonSchema {
  registerNames(routes);
  const paths: ZodOpenApiPathsObject = {};
  for (const def of routes) {
    const path = def.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const status = String(successStatus(def));
    const responses: Record<string, unknown> = {
      [status]: def.response ? { description: 'Success', content: { 'application/json': { schema: def.response } } } : { description: 'Success, no content' },
    };
    if (def.redirects) responses['302'] = { description: def.redirects, headers: { Location: { schema: { type: 'string', format: 'uri' } } } };
    for (const code of errorStatuses(def)) {
      responses[code] = { $ref: `#/components/responses/${ERROR_STATUSES[code].name}` };
    }
    (paths[path] ??= {})[def.method] = {
      operationId: operationId(def, path),
      summary: def.summary,
      tags: [def.tag],
      ...(def.access.scope === 'public' ? { security: [] } : {}),
      'x-required-access': def.access,
      requestParams: { ...(def.params ? { path: def.params as never } : {}), ...(def.query ? { query: def.query as never } : {}) },
      parameters: def.access.scope === 'project' ? [projectHeader] : [],
      ...(def.body ? { requestBody: { required: bodyRequired(def), content: { 'application/json': { schema: def.body } } } } : {}),
      responses: responses as ZodOpenApiOperationObject['responses'],
    };
  }
  const document = createDocument(
    {
      openapi: '3.1.0',
      info: {
        title: 'Webhook relay management API',
        version: opts.version,
        description:
          'Management API (`/v1`). Authenticate with `Authorization: Bearer <access JWT>` or a project API key (`svc_…`). ' +
          'Project-scoped operations act on the project in the `X-Project-Id` header (or `project_id`), else the caller\'s default project. ' +
          'Lists use cursor pagination (`limit`, `cursor` → `{ data, next_cursor }`).',
      },
      servers: [{ url: opts.serverUrl }],
      security: [{ bearer: [] }],
      components: {
        securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'User access JWT or project API key (svc_…)' } },
        schemas: { Error: errorBody },
        responses: errorResponses,
      },
      paths,
    },
    {
      override: ({ jsonSchema, io }) => {
        if (io === 'input') {
          closed(jsonSchema as JsonSchema);
          withoutNul(jsonSchema as JsonSchema);
        }
      },
    },
  ) as unknown as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: JsonSchema }> } }>> };
  // A PATCH must change something: the service refuses `{}` (src/http/route.ts).
  for (const ops of Object.values(document.paths)) {
    const body = ops.patch?.requestBody?.content['application/json'];
    if (body) body.schema = { ...body.schema, minProperties: 1 };
  }
  return document as unknown as JsonSchema;
}
