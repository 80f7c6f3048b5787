import type Router from '@koa/router';
import type { Context } from 'koa';
import { type ZodType, z } from 'zod';
import type { AppContainer } from '../app/container';
import { type AccessRequirement, authorize, type UserContext } from '../auth/access';
import { resolvePrincipal } from '../auth/principal';
import { ValidationError } from '../common/errors';
import type { Page } from '../common/pagination';
import { stringifyJson } from '../common/raw-json';
import { assertNoNulCharacters, type BodyFields, objectKeys, parseInput } from '../common/validation';
import type { OrganizationContext, ProjectContext, RequestContext } from '../common/request-context';
import { readJsonBody } from './json-body';

/**
 * One `/v1` operation: its path, input schemas, access requirement and a
 * handler that parses nothing itself and calls a service. The same
 * definitions mount the Koa routes and generate `/v1/openapi.json`, so the
 * document cannot drift from what is served.
 */
type ScopedContext<A extends AccessRequirement> = A extends { scope: 'project' }
  ? ProjectContext
  : A extends { scope: 'organization' }
    ? OrganizationContext
    : A extends { scope: 'user' }
      ? UserContext
      : RequestContext;

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  http: Context;
}

export interface RouteDef<A extends AccessRequirement = AccessRequirement, P = unknown, Q = unknown, B = unknown> {
  method: 'get' | 'post' | 'patch' | 'put' | 'delete';
  /** Koa path, e.g. `/v1/destinations/:id`. */
  path: string;
  summary: string;
  tag: string;
  access: A;
  params?: ZodType<P>;
  query?: ZodType<Q>;
  body?: ZodType<B>;
  /** Response schema for the OpenAPI document. */
  response?: ZodType;
  /** Success status: default 200 with a `response`, else 204 (the handler returns undefined). */
  status?: number;
  /** When the handler may answer a `Redirect` (302): what it redirects to, for the OpenAPI document. */
  redirects?: string;
  handler(ctx: ScopedContext<A>, input: RouteInput<P, Q, B>): Promise<unknown>;
}

/** The status a route answers on success, as mounted and as documented. */
export function successStatus(def: Pick<RouteDef, 'status' | 'response'>): number {
  return def.status ?? (def.response ? 200 : 204);
}

/** A handler's answer that sends the client elsewhere (302 with `Location`). */
export class Redirect {
  constructor(readonly location: string) {}
}

/** Identity function that lets TypeScript infer the route's types. */
export function route<A extends AccessRequirement, P = Record<string, never>, Q = Record<string, never>, B = undefined>(
  def: RouteDef<A, P, Q, B>,
): RouteDef {
  return def as unknown as RouteDef;
}

function parse<T>(schema: ZodType<T> | undefined, value: unknown, where: 'path' | 'query' | 'body', body?: BodyFields): T {
  if (!schema) return (where === 'body' ? undefined : {}) as T;
  // No body at all reads as `{}`; a JSON `null` is a body, and not an object: refused like any other non-object.
  return parseInput(schema, where === 'body' && value === undefined ? {} : value, where === 'path' ? 'path parameter' : where, body);
}

/** What a body may carry beyond its schema (a project-scoped operation's `project_id`, like `X-Project-Id`), and which of its other fields are read-only. */
function bodyFields(def: RouteDef): BodyFields {
  return { hint: def.access.scope === 'project' ? 'project_id' : undefined, answered: def.response ? objectKeys(def.response) : [] };
}

function firstString(value: unknown): string | undefined {
  if (Array.isArray(value)) return firstString(value[0]);
  return typeof value === 'string' && value ? value : undefined;
}

/** A project selection as sent, an empty one included (authorize refuses it: src/auth/access.ts). */
function selection(value: unknown): string | undefined {
  if (Array.isArray(value)) return selection(value[0]);
  return typeof value === 'string' ? value : undefined;
}

export async function createRequestContext(container: AppContainer, http: Context): Promise<RequestContext> {
  const em = container.orm.em.fork();
  const { principal, error } = await resolvePrincipal(container, em, http.get('authorization') || undefined);
  const header = selection(http.headers['x-project-id']);
  return {
    em,
    principal,
    authError: error,
    ...(header === undefined ? { projectHint: selection(http.query.project_id) } : { projectHint: header, projectHintFrom: 'X-Project-Id' }),
    requestId: http.state.requestId,
    clientIp: http.ip,
    container,
  };
}

export function mountRoutes(router: Router, container: AppContainer, routes: RouteDef[]): void {
  for (const def of routes) {
    router[def.method](def.path, async (http) => {
      const params = parse(def.params, http.params, 'path');
      const rawBody = def.body ? await readJsonBody(http.req, container.config.RELAY_MAX_BODY_BYTES) : undefined;
      // Before the body's project_id is read as a hint below.
      assertNoNulCharacters(rawBody, 'body');
      const ctx = await createRequestContext(container, http);
      const fromPath = firstString((params as Record<string, unknown>).projectId);
      const fromBody = selection((rawBody as Record<string, unknown> | null | undefined)?.project_id);
      const hints = {
        projectId: fromPath ?? fromBody,
        projectFrom: fromPath !== undefined ? 'projectId' : 'project_id',
        organizationId: firstString((params as Record<string, unknown>).organizationId),
      };
      // Who may call comes before what they sent: a caller without the role gets 401/403/404, never field errors (as in GraphQL).
      const scoped = await authorize(ctx, def.access, hints);
      const query = parse(def.query, http.query, 'query');
      // An update must change something (documented as a required body with minProperties: 1): no body at all is no change either.
      if (def.method === 'patch' && (rawBody === undefined || (rawBody !== null && typeof rawBody === 'object' && Object.keys(rawBody).length === 0))) {
        throw new ValidationError('Empty update: send at least one field to change.', { in: 'body', fields: [{ field: 'body', message: 'must have at least one property' }] }, 'empty_update');
      }
      const body = parse(def.body, rawBody, 'body', bodyFields(def));
      const result = await def.handler(scoped as never, { params, query, body, http });
      if (result instanceof Redirect) {
        http.redirect(result.location);
        return;
      }
      if (result === undefined) {
        http.status = 204;
        return;
      }
      // A list's rows are charged to the management rate limit after it ran (src/rate-limit/management-rate-limit.ts).
      if (isPage(result)) http.state.pageRows = result.data.length;
      http.status = successStatus(def);
      // Stored JSON (event payloads) is written as its exact text, not re-serialized from doubles.
      http.body = stringifyJson(result);
      http.type = 'application/json; charset=utf-8';
    });
  }
}

function isPage(result: unknown): result is Page<unknown> {
  return typeof result === 'object' && result !== null && Array.isArray((result as Page<unknown>).data) && 'next_cursor' in result;
}

/** Common schemas for route definitions. */
export const idParams = z.object({ id: z.uuid({ message: 'must be a UUID' }) });
