import { type ZodType, z } from 'zod';
import { type RouteDef, successStatus } from './route';

/**
 * Builds the OpenAPI 3.1 document of `/v1` from the route definitions that
 * are actually mounted (src/http/v1.ts), so it cannot drift from them.
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

function schemaOf(type: ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(type, { io, unrepresentable: 'any' }) as JsonSchema;
  return io === 'input' ? withoutNul(schema) : schema;
}

/** `assertNoNulCharacters` (src/common/validation.ts) refuses a NUL in any text input: said on every input string and key. */
const NO_NUL = '^[^\\u0000]*$';

function withoutNul(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (Array.isArray(value)) out[key] = value.map((item) => (item && typeof item === 'object' ? withoutNul(item as JsonSchema) : item));
    else if (value && typeof value === 'object' && !['default', 'examples', 'const', 'enum'].includes(key)) out[key] = withoutNul(value as JsonSchema);
    else out[key] = value;
  }
  if (out.type === 'string' && !out.format && !out.enum && out.const === undefined) {
    if (out.pattern === undefined) out.pattern = NO_NUL;
    else out.allOf = [...((out.allOf as JsonSchema[] | undefined) ?? []), { pattern: NO_NUL }];
  }
  if (out.type === 'object' && out.additionalProperties !== false && !out.propertyNames) out.propertyNames = { pattern: NO_NUL };
  return out;
}

/** Project-scoped operations act on the project named here (or `project_id`); needed when the caller has more than one. */
const projectHeader: JsonSchema = {
  name: 'X-Project-Id',
  in: 'header',
  required: false,
  schema: { type: 'string', format: 'uuid' },
  description: 'The project to act on (or the `project_id` query parameter); required when the credential is a user with more than one project, else 400 `project_required`. API keys act on their own project.',
};

function parameters(type: ZodType | undefined, location: 'path' | 'query'): JsonSchema[] {
  if (!type) return [];
  const schema = schemaOf(type, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
  return Object.entries(schema.properties ?? {}).map(([name, property]) => ({
    name,
    in: location,
    required: location === 'path' || (schema.required ?? []).includes(name),
    schema: property,
    ...(property.description ? { description: property.description } : {}),
  }));
}

const ERROR_STATUSES: Record<string, string> = {
  '400': 'Invalid input',
  '401': 'Missing, invalid or expired credentials (public operations: wrong password, invalid or reused refresh token)',
  '403': 'Authenticated, but the role is insufficient',
  '404': 'Not found or not accessible',
  '409': 'Conflict',
  '413': 'Request body over the size limit',
  '415': 'Request body is not JSON',
  '429': 'Rate limited (see Retry-After)',
  '431': 'Request line and headers over the server limit (a long query string counts)',
};

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

/** A PATCH must change something: the service refuses `{}` (src/http/route.ts). */
function requestBodySchema(def: RouteDef): JsonSchema {
  const schema = schemaOf(def.body!, 'input');
  return def.method === 'patch' ? { ...schema, minProperties: 1 } : schema;
}

export function buildOpenApiDocument(routes: RouteDef[], opts: { version: string; serverUrl: string }): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const def of routes) {
    const path = def.path.replace(/:([A-Za-z_]+)/g, '{$1}');
    const status = String(successStatus(def));
    const responses: Record<string, JsonSchema> = {
      [status]: def.response
        ? { description: 'Success', content: { 'application/json': { schema: schemaOf(def.response, 'output') } } }
        : { description: 'Success, no content' },
    };
    if (def.redirects) responses['302'] = { description: def.redirects, headers: { Location: { schema: { type: 'string', format: 'uri' } } } };
    for (const code of errorStatuses(def)) {
      responses[code] = { description: ERROR_STATUSES[code], content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
    }
    (paths[path] ??= {})[def.method] = {
      operationId: `${def.method}${path.replace(/[{}]/g, '').replace(/[^A-Za-z0-9]+(.)?/g, (_m, c: string | undefined) => (c ? c.toUpperCase() : ''))}`,
      summary: def.summary,
      tags: [def.tag],
      ...(def.access.scope === 'public' ? { security: [] } : {}),
      'x-required-access': def.access,
      parameters: [...parameters(def.params, 'path'), ...parameters(def.query, 'query'), ...(def.access.scope === 'project' ? [projectHeader] : [])],
      ...(def.body ? { requestBody: { required: bodyRequired(def), content: { 'application/json': { schema: requestBodySchema(def) } } } } : {}),
      responses,
    };
  }
  return {
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
    },
    paths,
  };
}
