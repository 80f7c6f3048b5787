import { createHmac } from 'node:crypto';

/**
 * Outbound webhook signature (SPEC.md "Outbound signing"): HMAC-SHA256 of
 * `<timestamp>.<raw body>` keyed with the destination's secret, as `sha256=<lowercase hex>`.
 */
export function signOutbound(secret: string, timestampSeconds: number, rawBody: string | Buffer): string {
  const hmac = createHmac('sha256', secret);
  hmac.update(`${timestampSeconds}.`);
  hmac.update(rawBody);
  return `sha256=${hmac.digest('hex')}`;
}
