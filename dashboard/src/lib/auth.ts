/**
 * Session tokens. The access token lives in memory only; the refresh token is kept in
 * localStorage so a reload (or a second tab) stays signed in. Every refresh spends the
 * refresh token and stores the new one (the API revokes a family whose spent token is
 * reused), so tabs take turns: a refresh runs under a Web Lock shared by every tab of this
 * origin, re-reads the stored token inside it, and hands the new access token to the other
 * tabs over a BroadcastChannel. docs/dashboard.md explains the choice.
 */
const REFRESH_KEY = 'relay.refreshToken';
const REFRESH_LOCK = 'relay.refresh';
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

/** Access tokens other tabs got (null without BroadcastChannel: each tab then refreshes for itself, in turn). */
const channel = typeof BroadcastChannel === 'function' ? new BroadcastChannel('relay.session') : null;
channel?.addEventListener('message', (event: MessageEvent<{ accessToken: string; expiresAt: number }>) => {
  if (event.data.expiresAt > expiresAt) ({ accessToken, expiresAt } = event.data);
});

// Logged out in another tab: forget this tab's access token too.
window.addEventListener('storage', (event) => {
  if (event.key !== REFRESH_KEY || event.newValue !== null) return;
  accessToken = null;
  expiresAt = 0;
  listeners.forEach((l) => l(false));
});

const fresh = () => accessToken !== null && Date.now() < expiresAt - EARLY_MS;

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
  channel?.postMessage({ accessToken, expiresAt });
  listeners.forEach((l) => l(true));
}

export function clearSession(): void {
  accessToken = null;
  expiresAt = 0;
  localStorage.removeItem(REFRESH_KEY);
  listeners.forEach((l) => l(false));
}

const REFRESH = `mutation Refresh($token: String!) { refreshToken(refreshToken: $token) { accessToken refreshToken expiresIn } }`;

/** Runs `fn` while no other tab of this origin refreshes (Web Locks need a secure context: without them, no lock). */
async function withRefreshLock(fn: () => Promise<string | null>): Promise<string | null> {
  return navigator.locks ? await navigator.locks.request(REFRESH_LOCK, fn) : fn();
}

/**
 * Spends the stored refresh token once, however many callers (and tabs) ask at the same time:
 * a tab that waited for another tab's refresh uses the access token that tab shared, or else
 * the refresh token it stored, never the one already spent.
 */
function refresh(): Promise<string | null> {
  refreshing ??= withRefreshLock(async () => {
    if (fresh()) return accessToken;
    const token = localStorage.getItem(REFRESH_KEY);
    if (!token) return null;
    try {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: REFRESH, operationName: 'Refresh', variables: { token } }),
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
    }
  }).finally(() => {
    refreshing = null;
  });
  return refreshing;
}

/** A usable access token, refreshed silently when it is missing or about to expire. */
export async function currentAccessToken(): Promise<string | null> {
  if (fresh()) return accessToken;
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
      body: JSON.stringify({ query: 'mutation Logout($t: String!) { logout(refreshToken: $t) }', operationName: 'Logout', variables: { t: token } }),
    })
      // Read the answer: a response body nobody reads is never finished loading in the browser (nor in the test's recorder).
      .then((res) => res.text())
      .catch(() => undefined);
  }
  clearSession();
}
