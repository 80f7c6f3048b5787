/**
 * Session tokens. The access token lives in memory only; the refresh token is kept in
 * localStorage so a reload (or a second tab) stays signed in. Every refresh spends the
 * refresh token and stores the new one (the API revokes a family whose spent token is
 * reused). docs/dashboard.md explains the choice.
 */
const REFRESH_KEY = 'relay.refreshToken';
/** Refresh this long before the access token expires. */
const EARLY_MS = 30_000;

export interface Session {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
}

type Listener = (signedIn: boolean) => void;

let accessToken: string | null = null;
let expiresAt = 0;
let refreshing: Promise<string | null> | null = null;
const listeners = new Set<Listener>();

export function hasRefreshToken(): boolean {
  return localStorage.getItem(REFRESH_KEY) !== null;
}

export function onAuthChange(listener: Listener): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function storeSession(session: Session): void {
  accessToken = session.accessToken;
  expiresAt = Date.now() + session.expiresIn * 1000;
  localStorage.setItem(REFRESH_KEY, session.refreshToken);
  listeners.forEach((l) => l(true));
}

export function clearSession(): void {
  accessToken = null;
  expiresAt = 0;
  localStorage.removeItem(REFRESH_KEY);
  listeners.forEach((l) => l(false));
}

const REFRESH = `mutation Refresh($token: String!) { refreshToken(refreshToken: $token) { accessToken refreshToken expiresIn } }`;

/** Spends the stored refresh token once, however many callers ask at the same time. */
function refresh(): Promise<string | null> {
  refreshing ??= (async () => {
    const token = localStorage.getItem(REFRESH_KEY);
    if (!token) return null;
    try {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: REFRESH, variables: { token } }),
      });
      const body = (await res.json()) as { data?: { refreshToken?: Session } };
      const session = body.data?.refreshToken;
      if (!session) {
        clearSession();
        return null;
      }
      storeSession(session);
      return session.accessToken;
    } catch {
      return null; // offline: keep the refresh token, try again on the next request
    } finally {
      refreshing = null;
    }
  })();
  return refreshing;
}

/** A usable access token, refreshed silently when it is missing or about to expire. */
export async function currentAccessToken(): Promise<string | null> {
  if (accessToken && Date.now() < expiresAt - EARLY_MS) return accessToken;
  return refresh();
}

/** After the API answered `unauthenticated` with a token we thought valid. */
export function forceRefresh(): Promise<string | null> {
  accessToken = null;
  return refresh();
}

/** Revokes the refresh token on the server, then forgets the session. */
export async function logout(): Promise<void> {
  const token = localStorage.getItem(REFRESH_KEY);
  const bearer = await currentAccessToken().catch(() => null);
  if (token) {
    await fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(bearer ? { authorization: `Bearer ${bearer}` } : {}) },
      body: JSON.stringify({ query: 'mutation Logout($t: String!) { logout(refreshToken: $t) }', variables: { t: token } }),
    }).catch(() => undefined);
  }
  clearSession();
}
