import { randomBytes } from 'node:crypto';
import { type CallOptions, gql, type GraphQLResponse, rest, type RestResponse } from './api';

/**
 * Helpers for the account, organization and OAuth suites: REST/GraphQL
 * clients that remember every response body, so that each suite can assert
 * that no secret it knows ever came back.
 */
export class RecordingClient {
  readonly bodies: string[] = [];

  constructor(readonly baseUrl: string) {}

  async rest<T = any>(method: string, path: string, opts: CallOptions = {}): Promise<RestResponse<T>> {
    const res = await rest<T>(this.baseUrl, method, path, opts);
    this.bodies.push(res.text);
    return res;
  }

  async gql<T = any>(query: string, variables: Record<string, unknown> = {}, opts: CallOptions = {}): Promise<GraphQLResponse<T>> {
    const res = await gql<T>(this.baseUrl, query, variables, opts);
    this.bodies.push(res.text);
    return res;
  }

  record(text: string): void {
    this.bodies.push(text);
  }

  /** Every recorded body free of every given secret. */
  expectNoSecrets(secrets: Array<string | null | undefined>): void {
    const known = secrets.filter((s): s is string => typeof s === 'string' && s.length >= 8);
    expect(this.bodies.length).toBeGreaterThan(0);
    for (const body of this.bodies) for (const secret of known) expect(body).not.toContain(secret);
  }
}

export const uniqueEmail = (label = 'user') => `${label}-${randomBytes(4).toString('hex')}@example.test`;
export const PASSWORD = 'correct horse battery staple';

export interface Session {
  access_token: string;
  refresh_token: string;
  user: { id: string; email: string };
}

export async function signup(client: RecordingClient, email = uniqueEmail(), extra: Record<string, unknown> = {}): Promise<Session> {
  const res = await client.rest('POST', '/v1/auth/signup', { body: { email, password: PASSWORD, ...extra } });
  if (res.status !== 201) throw new Error(`signup failed: ${res.status} ${res.text}`);
  return res.body;
}
