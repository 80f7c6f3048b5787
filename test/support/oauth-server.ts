import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small OAuth 2 authorization server for tests, strict the way a real
 * provider is: exact redirect_uri match, `state` required and echoed, PKCE
 * S256 required and checked, client authentication (Basic or body) on the
 * token endpoint, single-use codes bound to client/redirect/challenge,
 * expiring access tokens, rotating refresh tokens, and a userinfo endpoint.
 * The "user" consents automatically (or denies, when `deny` is set).
 */
export interface OAuthTestUser {
  sub: string;
  email?: string;
  email_verified?: boolean;
  preferred_username?: string;
}

interface Code { clientId: string; redirectUri: string; challenge: string; scope: string; user: OAuthTestUser; expiresAt: number; used: boolean }
interface Access { user: OAuthTestUser; expiresAt: number; scope: string }

export interface OAuthTestServer {
  url: string;
  clientId: string;
  clientSecret: string;
  user: OAuthTestUser;
  /** Answer the next authorizations with `error=access_denied`. */
  deny: boolean;
  accessTokenTtlSeconds: number;
  /** The `iss` its authorization responses carry (RFC 9207), if any: its own URL for a server that announces it. */
  iss: string | undefined;
  /** Every access and refresh token issued (to check they never leak). */
  issued: string[];
  grants: string[];
  env(provider: string): Record<string, string>;
  close(): Promise<void>;
}

const b64url = (buf: Buffer) => buf.toString('base64url');
const token = (prefix: string) => `${prefix}_${b64url(randomBytes(24))}`;

export async function startOAuthServer(opts: { redirectUris: string[]; clientId?: string; clientSecret?: string; user?: OAuthTestUser }): Promise<OAuthTestServer> {
  const codes = new Map<string, Code>();
  const access = new Map<string, Access>();
  const refresh = new Map<string, { user: OAuthTestUser; scope: string }>();

  const state: Omit<OAuthTestServer, 'url' | 'env' | 'close'> = {
    clientId: opts.clientId ?? `client-${b64url(randomBytes(6))}`,
    clientSecret: opts.clientSecret ?? `secret-${b64url(randomBytes(18))}`,
    user: opts.user ?? { sub: 'u-1', email: 'someone@example.test', email_verified: true, preferred_username: 'someone' },
    deny: false,
    accessTokenTtlSeconds: 3600,
    iss: undefined,
    issued: [],
    grants: [],
  };

  function json(res: http.ServerResponse, status: number, body: unknown): void {
    res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
    res.end(JSON.stringify(body));
  }

  function issue(user: OAuthTestUser, scope: string) {
    const accessToken = token('at');
    const refreshToken = token('rt');
    access.set(accessToken, { user, scope, expiresAt: Date.now() + state.accessTokenTtlSeconds * 1000 });
    refresh.set(refreshToken, { user, scope });
    state.issued.push(accessToken, refreshToken);
    return { access_token: accessToken, token_type: 'Bearer', expires_in: state.accessTokenTtlSeconds, refresh_token: refreshToken, scope };
  }

  function clientAuth(req: http.IncomingMessage, form: URLSearchParams): boolean {
    const basic = /^Basic (.+)$/.exec(req.headers.authorization ?? '');
    let id = form.get('client_id');
    let secret = form.get('client_secret');
    if (basic) {
      const [u, p] = Buffer.from(basic[1], 'base64').toString().split(':');
      id = decodeURIComponent(u);
      secret = decodeURIComponent(p ?? '');
    }
    return id === state.clientId && secret === state.clientSecret;
  }

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    if (req.method === 'GET' && url.pathname === '/authorize') {
      const q = url.searchParams;
      // Per RFC 6749 §4.1.2.1: with a bad client or redirect_uri, never redirect.
      const redirectUri = q.get('redirect_uri') ?? '';
      if (q.get('client_id') !== state.clientId || !opts.redirectUris.includes(redirectUri)) return json(res, 400, { error: 'invalid_request', error_description: 'client_id or redirect_uri mismatch' });
      const back = new URL(redirectUri);
      const stateParam = q.get('state');
      if (stateParam) back.searchParams.set('state', stateParam);
      if (state.iss) back.searchParams.set('iss', state.iss);
      const fail = (error: string) => {
        back.searchParams.set('error', error);
        res.writeHead(302, { location: back.toString() }).end();
      };
      if (q.get('response_type') !== 'code') return fail('unsupported_response_type');
      if (!stateParam) return fail('invalid_request');
      if (!q.get('code_challenge') || q.get('code_challenge_method') !== 'S256') return fail('invalid_request');
      if (state.deny) return fail('access_denied');
      const code = token('code');
      codes.set(code, { clientId: state.clientId, redirectUri, challenge: q.get('code_challenge')!, scope: q.get('scope') ?? '', user: { ...state.user }, expiresAt: Date.now() + 60_000, used: false });
      back.searchParams.set('code', code);
      res.writeHead(302, { location: back.toString() }).end();
      return;
    }
    if (req.method === 'POST' && url.pathname === '/token') {
      let raw = '';
      for await (const chunk of req) raw += chunk;
      if (!(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return json(res, 400, { error: 'invalid_request' });
      const form = new URLSearchParams(raw);
      if (!clientAuth(req, form)) return json(res, 401, { error: 'invalid_client' });
      const grant = form.get('grant_type');
      state.grants.push(grant ?? '');
      if (grant === 'authorization_code') {
        const code = codes.get(form.get('code') ?? '');
        const verifier = form.get('code_verifier') ?? '';
        if (!code || code.used || code.expiresAt < Date.now() || code.redirectUri !== form.get('redirect_uri')) return json(res, 400, { error: 'invalid_grant' });
        code.used = true;
        if (b64url(createHash('sha256').update(verifier).digest()) !== code.challenge) return json(res, 400, { error: 'invalid_grant', error_description: 'PKCE verification failed' });
        return json(res, 200, issue(code.user, code.scope));
      }
      if (grant === 'refresh_token') {
        const presented = form.get('refresh_token') ?? '';
        const entry = refresh.get(presented);
        if (!entry) return json(res, 400, { error: 'invalid_grant' });
        refresh.delete(presented); // rotation: a refresh token works once
        return json(res, 200, issue(entry.user, entry.scope));
      }
      return json(res, 400, { error: 'unsupported_grant_type' });
    }
    if (req.method === 'GET' && url.pathname === '/userinfo') {
      const bearer = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1];
      const entry = bearer ? access.get(bearer) : undefined;
      if (!entry || entry.expiresAt < Date.now()) return json(res, 401, { error: 'invalid_token' });
      return json(res, 200, entry.user);
    }
    json(res, 404, { error: 'not_found' });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return Object.assign(state, {
    url,
    env: (provider: string) => {
      const p = `OAUTH_${provider.toUpperCase()}_`;
      return {
        [`${p}CLIENT_ID`]: state.clientId,
        [`${p}CLIENT_SECRET`]: state.clientSecret,
        [`${p}AUTHORIZE_URL`]: `${url}/authorize`,
        [`${p}TOKEN_URL`]: `${url}/token`,
        [`${p}USERINFO_URL`]: `${url}/userinfo`,
        [`${p}SCOPES`]: 'repo read:user',
      };
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  });
}
