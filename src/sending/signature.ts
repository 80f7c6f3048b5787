import { createHmac } from 'node:crypto';
import { hmacHex } from '../common/secret-box';

/**
 * Outbound webhook signatures, in the destination's `signature_scheme`
 * (docs/delivery.md "Signing"):
 * - `service`: `X-{prefix}-Signature: sha256=<hex>`, HMAC-SHA256 of `<timestamp>.<raw body>`
 *   keyed with the secret's text;
 * - `standard` (Standard Webhooks): `webhook-signature: v1,<base64>`, HMAC-SHA256 of
 *   `<id>.<timestamp>.<raw body>` keyed with the bytes the `whsec_<base64>` secret encodes.
 */
export const SIGNATURE_SCHEMES = ['service', 'standard'] as const;
export type SignatureScheme = (typeof SIGNATURE_SCHEMES)[number];

export function signOutbound(secret: string, timestampSeconds: number, rawBody: string | Buffer): string {
  return `sha256=${hmacHex(secret, `${timestampSeconds}.`, rawBody)}`;
}

const STANDARD_PREFIX = 'whsec_';
export const STANDARD_KEY_BYTES = { min: 24, max: 64 } as const;
// Padded standard base64, as the Standard Webhooks libraries decode it (no URL-safe alphabet, no whitespace).
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Whether the text is a Standard Webhooks secret this service accepts: `whsec_` + padded base64 of 24–64 bytes. */
export function isStandardSecret(secret: string): boolean {
  if (!secret.startsWith(STANDARD_PREFIX)) return false;
  const encoded = secret.slice(STANDARD_PREFIX.length);
  if (!BASE64.test(encoded)) return false;
  const bytes = (encoded.length / 4) * 3 - (encoded.endsWith('==') ? 2 : encoded.endsWith('=') ? 1 : 0);
  return bytes >= STANDARD_KEY_BYTES.min && bytes <= STANDARD_KEY_BYTES.max;
}

/** The HMAC key a Standard Webhooks secret encodes (the bytes after `whsec_`), decoded as the receivers' libraries do. */
export function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith(STANDARD_PREFIX) ? secret.slice(STANDARD_PREFIX.length) : secret, 'base64');
}

/** One Standard Webhooks signature: `v1,` + base64 HMAC-SHA256 of `<id>.<timestamp>.<raw body>`. */
export function signStandard(key: Buffer, id: string, timestampSeconds: number, rawBody: string | Buffer): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${timestampSeconds}.`).update(rawBody).digest('base64')}`;
}
