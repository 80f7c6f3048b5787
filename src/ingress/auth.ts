import { jwtVerify } from 'jose';
import { UnauthenticatedError } from '../common/errors';
import { constantTimeEqual, hmacHex } from '../common/secret-box';
import type { EndpointProvider } from '../common/types';

/**
 * Ingress authentication (docs/ingress.md, docs/ingress.md).
 * Each scheme is a small pure check over the raw body and the headers; every
 * comparison is constant-time. `secrets` lists the current signing secret and,
 * during a rotation overlap, the previous one: any of them may sign.
 */
export type Headers = Record<string, string | undefined>;
export type Check = { ok: true } | { ok: false; expired?: boolean };

const OK: Check = { ok: true };
const INVALID: Check = { ok: false };
const EXPIRED: Check = { ok: false, expired: true };

/** 5 minutes for `chat_a` and `payments_a` (docs/ingress.md). */
export const TIMESTAMP_TOLERANCE_SECONDS = 300;
/** docs/ingress.md: `exp` leeway for `tracker_a` JWTs. */
export const JWT_LEEWAY_SECONDS = 60;

function anySecretMatches(secrets: readonly string[], provided: string, expected: (secret: string) => string): boolean {
  let match = false;
  // No early exit: every secret is compared, so timing does not tell which one (if any) matched.
  for (const secret of secrets) match = constantTimeEqual(expected(secret), provided) || match;
  return match;
}

function withinTolerance(timestamp: string, nowSeconds: number): boolean {
  if (!/^\d{1,12}$/.test(timestamp)) return false;
  return Math.abs(nowSeconds - Number(timestamp)) <= TIMESTAMP_TOLERANCE_SECONDS;
}

/** `X-Hub-Signature-256` / `X-Service-Signature`: `sha256=<lowercase hex HMAC-SHA256 of the raw body>`. */
export function checkHubSignature(raw: Buffer, header: string, secrets: readonly string[]): Check {
  if (!header.startsWith('sha256=')) return INVALID;
  const provided = header.slice('sha256='.length).toLowerCase();
  return anySecretMatches(secrets, provided, (s) => hmacHex(s, raw)) ? OK : INVALID;
}

/** `chat_a`: `v0=<hex>` of `v0:{timestamp}:{body}`, timestamp within 5 minutes. */
export function checkChatA(raw: Buffer, signature: string, timestamp: string | undefined, secrets: readonly string[], nowSeconds: number): Check {
  if (!timestamp || !signature.startsWith('v0=')) return INVALID;
  if (!withinTolerance(timestamp, nowSeconds)) return EXPIRED;
  const provided = signature.slice(3).toLowerCase();
  return anySecretMatches(secrets, provided, (s) => hmacHex(s, `v0:${timestamp}:`, raw)) ? OK : INVALID;
}

/** `codehost_b`: the token header equals the signing secret. */
export function checkCodehostB(token: string, secrets: readonly string[]): Check {
  return anySecretMatches(secrets, token, (s) => s) ? OK : INVALID;
}

/** `tracker_b`: bare lowercase hex HMAC-SHA256 of the raw body. */
export function checkTrackerB(raw: Buffer, signature: string, secrets: readonly string[]): Check {
  return anySecretMatches(secrets, signature.toLowerCase(), (s) => hmacHex(s, raw)) ? OK : INVALID;
}

/** `payments_a`: `t=<ts>,v1=<hex>[,v1=<hex>…]`; v1 = HMAC of `<t>.<body>`; any v1 may match; t within 5 minutes. */
export function checkPaymentsA(raw: Buffer, header: string, secrets: readonly string[], nowSeconds: number): Check {
  let timestamp: string | undefined;
  const signatures: string[] = [];
  for (const item of header.split(',')) {
    const eq = item.indexOf('=');
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    if (key === 't') timestamp = value;
    else if (key === 'v1') signatures.push(value.toLowerCase());
  }
  if (!timestamp || signatures.length === 0) return INVALID;
  if (!withinTolerance(timestamp, nowSeconds)) return EXPIRED;
  const expected = secrets.map((s) => hmacHex(s, `${timestamp}.`, raw));
  let match = false;
  for (const sig of signatures) for (const e of expected) match = constantTimeEqual(e, sig) || match;
  return match ? OK : INVALID;
}

/** `tracker_a`: an HS256 JWT signed with the signing secret; `exp` checked with 60 s leeway. */
export async function checkTrackerAJwt(token: string, secrets: readonly string[], now: Date): Promise<Check> {
  let expired = false;
  for (const secret of secrets) {
    try {
      await jwtVerify(token, new TextEncoder().encode(secret), {
        algorithms: ['HS256'],
        clockTolerance: JWT_LEEWAY_SECONDS,
        currentDate: now,
      });
      return OK;
    } catch (err) {
      if ((err as { code?: string }).code === 'ERR_JWT_EXPIRED') expired = true;
    }
  }
  return expired ? EXPIRED : INVALID;
}

export interface AuthTarget {
  provider: EndpointProvider | null;
  projectId: string;
  /** Current secret first, then the previous one while its overlap lasts. */
  secrets: readonly string[];
}

/** Resolves `svc_…` keys to the project they belong to (null: unknown or revoked). */
export type ApiKeyLookup = (key: string) => Promise<string | null>;

interface Presented {
  scheme: string;
  check: () => Check | Promise<Check>;
}

const SCHEMES_BY_PROVIDER: Partial<Record<EndpointProvider, string>> = {
  chat_a: 'X-ChatA-Signature (v0=<hex>) with X-ChatA-Request-Timestamp',
  codehost_b: 'X-CodehostB-Token',
  tracker_b: 'TrackerB-Signature (hex HMAC-SHA256)',
  payments_a: 'PaymentsA-Signature (t=<ts>,v1=<hex>)',
  tracker_a: 'Authorization: Bearer <JWT>',
};

export function expectedSchemes(provider: EndpointProvider | null): string {
  const generic = 'X-Hub-Signature-256 or X-Service-Signature (sha256=<hex>), or Authorization: Bearer svc_<api key>';
  const specific = provider ? SCHEMES_BY_PROVIDER[provider] : undefined;
  return specific ? `${specific}, or ${generic}` : generic;
}

/**
 * Every credential the request presents is checked; one that verifies is
 * enough. None presented → 401 naming the expected schemes; all failing →
 * 401 naming the scheme that failed (and whether its timestamp expired).
 */
export async function authenticate(
  target: AuthTarget,
  headers: Headers,
  raw: Buffer,
  lookupApiKey: ApiKeyLookup,
  now: Date = new Date(),
): Promise<string> {
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const { secrets, provider } = target;
  const presented: Presented[] = [];
  const hub = headers['x-hub-signature-256'];
  if (hub) presented.push({ scheme: 'X-Hub-Signature-256', check: () => checkHubSignature(raw, hub, secrets) });
  const service = headers['x-service-signature'];
  if (service) presented.push({ scheme: 'X-Service-Signature', check: () => checkHubSignature(raw, service, secrets) });

  if (provider === 'chat_a' && headers['x-chata-signature']) {
    const sig = headers['x-chata-signature'];
    presented.push({ scheme: 'X-ChatA-Signature', check: () => checkChatA(raw, sig, headers['x-chata-request-timestamp'], secrets, nowSeconds) });
  }
  if (provider === 'codehost_b' && headers['x-codehostb-token']) {
    const token = headers['x-codehostb-token'];
    presented.push({ scheme: 'X-CodehostB-Token', check: () => checkCodehostB(token, secrets) });
  }
  if (provider === 'tracker_b' && headers['trackerb-signature']) {
    const sig = headers['trackerb-signature'];
    presented.push({ scheme: 'TrackerB-Signature', check: () => checkTrackerB(raw, sig, secrets) });
  }
  if (provider === 'payments_a' && headers['paymentsa-signature']) {
    const sig = headers['paymentsa-signature'];
    presented.push({ scheme: 'PaymentsA-Signature', check: () => checkPaymentsA(raw, sig, secrets, nowSeconds) });
  }

  const bearer = /^Bearer\s+(\S+)$/i.exec(headers.authorization ?? '')?.[1];
  if (bearer?.startsWith('svc_')) {
    presented.push({
      scheme: 'API key',
      check: async () => ((await lookupApiKey(bearer)) === target.projectId ? OK : INVALID),
    });
  } else if (bearer && provider === 'tracker_a') {
    presented.push({ scheme: 'tracker_a JWT', check: () => checkTrackerAJwt(bearer, secrets, now) });
  }

  if (presented.length === 0) {
    throw new UnauthenticatedError(`Missing authentication: expected ${expectedSchemes(provider)}.`, 'missing_authentication');
  }
  let firstFailure: { scheme: string; expired?: boolean } | undefined;
  for (const p of presented) {
    const result = await p.check();
    if (result.ok) return p.scheme;
    firstFailure ??= { scheme: p.scheme, expired: result.expired };
  }
  const { scheme, expired } = firstFailure!;
  if (expired) {
    throw new UnauthenticatedError(`${scheme}: the signature's timestamp is outside the allowed window (expired); sign with the current time.`, 'expired_authentication');
  }
  throw new UnauthenticatedError(
    scheme === 'API key'
      ? 'API key: the key is unknown, revoked, or belongs to another project.'
      : `${scheme}: the signature does not match; sign the raw body with the endpoint's signing secret.`,
    'invalid_authentication',
  );
}
