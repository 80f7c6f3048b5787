import { hmacHex } from '../common/secret-box';

/**
 * Outbound webhook signature (docs/sending.md): HMAC-SHA256 of
 * `<timestamp>.<raw body>` keyed with the destination's secret, as `sha256=<lowercase hex>`.
 */
export function signOutbound(secret: string, timestampSeconds: number, rawBody: string | Buffer): string {
  return `sha256=${hmacHex(secret, `${timestampSeconds}.`, rawBody)}`;
}
