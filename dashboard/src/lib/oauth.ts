/**
 * OAuth sign-in with the dashboard's own PKCE pair (the flow `relay login --oauth` uses, with
 * this page instead of a loopback server): the API's callback sends the browser to
 * `/oauth/callback?code=…`, and only the tab holding the verifier can exchange that code for a
 * session. The verifier waits in sessionStorage (this tab only) while the browser is away at
 * the provider, and is removed as soon as it is read.
 */
const VERIFIER_KEY = 'relay.oauthVerifier';
export const OAUTH_CALLBACK_PATH = '/oauth/callback';

const base64url = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes)).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');

/** A fresh verifier (32 random bytes) and its S256 challenge, kept for the callback page. */
export async function newPkceChallenge(): Promise<string> {
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier));
  sessionStorage.setItem(VERIFIER_KEY, verifier);
  return base64url(new Uint8Array(digest));
}

/** The verifier this tab started with, once. */
export function takePkceVerifier(): string | null {
  const verifier = sessionStorage.getItem(VERIFIER_KEY);
  sessionStorage.removeItem(VERIFIER_KEY);
  return verifier;
}

export const oauthRedirectUri = () => `${window.location.origin}${OAUTH_CALLBACK_PATH}`;
