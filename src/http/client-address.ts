import type { IncomingMessage } from 'node:http';

/**
 * The client's address for every use (per-IP limits, the management rate
 * limit's anonymous key, ingress `source_ip`), HTTP and WebSocket alike.
 * X-Forwarded-For is a list each proxy appends to; only the last
 * `trustedHops` entries were written by proxies the operator runs
 * (RELAY_TRUST_PROXY), so the client is the entry just before them. With no
 * trusted hop the header is ignored: anyone can send it.
 */
export function clientAddress(req: IncomingMessage, trustedHops: number): string {
  const peer = req.socket.remoteAddress ?? '';
  if (trustedHops === 0) return peer;
  const header = req.headers['x-forwarded-for'];
  const hops = (Array.isArray(header) ? header.join(',') : (header ?? ''))
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);
  // The nearest proxy is the peer itself; the entries it and the other trusted proxies appended are the last trustedHops.
  return hops.length >= trustedHops ? hops[hops.length - trustedHops] : (hops[0] ?? peer);
}
