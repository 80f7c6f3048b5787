import type { AppContainer } from '../../src/app/container';
import { issueAccessToken } from '../../src/auth/tokens';
import { type ApiServer, startApiServer } from '../../src/http/server';
import { createTestContainer, type TestContainer } from './test-env';

/**
 * The real HTTP API (Koa + Apollo + graphql-ws) on a random port over a fresh
 * database, and small clients that speak REST and GraphQL to it as a user would.
 */
export interface TestApi extends TestContainer {
  server: ApiServer;
  baseUrl: string;
  close(): Promise<void>;
}

export async function startTestApi(overrides: Record<string, string> = {}): Promise<TestApi> {
  const env = await createTestContainer(overrides);
  const server = await startApiServer(env.container, 0, '127.0.0.1');
  return {
    ...env,
    server,
    baseUrl: server.url,
    close: async () => {
      await server.close();
      await env.close();
    },
  };
}

export async function tokenFor(container: AppContainer, userId: string): Promise<string> {
  return (await issueAccessToken(container.config, userId)).token;
}

export interface CallOptions {
  token?: string;
  projectId?: string;
  body?: unknown;
  headers?: Record<string, string>;
}

export interface RestResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
  text: string;
}

export async function rest<T = any>(baseUrl: string, method: string, path: string, opts: CallOptions = {}): Promise<RestResponse<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  if (opts.projectId) headers['x-project-id'] = opts.projectId;
  if (opts.body !== undefined) headers['content-type'] ??= 'application/json';
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers,
    body: opts.body === undefined ? undefined : typeof opts.body === 'string' ? opts.body : JSON.stringify(opts.body),
  });
  const text = await res.text();
  let body: any = text;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    /* not JSON */
  }
  return { status: res.status, headers: res.headers, body, text };
}

export interface GraphQLResponse<T = any> {
  status: number;
  data?: T;
  errors?: Array<{ message: string; extensions?: { code?: string; status?: number; details?: Record<string, unknown> } }>;
  headers: Headers;
  text: string;
}

export async function gql<T = any>(baseUrl: string, query: string, variables: Record<string, unknown> = {}, opts: CallOptions = {}): Promise<GraphQLResponse<T>> {
  const res = await rest(baseUrl, 'POST', '/graphql', { ...opts, body: { query, variables } });
  return { status: res.status, data: res.body?.data, errors: res.body?.errors, headers: res.headers, text: res.text };
}
