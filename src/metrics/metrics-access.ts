import { createHash, timingSafeEqual } from 'node:crypto';
import type { Config } from '../config/config';

/**
 * Who reads `/metrics` on the API's own (public) port: holders of RELAY_METRICS_TOKEN when it is
 * set; nobody in production otherwise (Prometheus scrapes the metrics listener, RELAY_METRICS_PORT);
 * anyone outside production (`npm start` on loopback, the tests).
 */
export type PublicMetricsAccess = 'token' | 'off' | 'open';

export function publicMetricsAccess(config: Pick<Config, 'NODE_ENV' | 'RELAY_METRICS_TOKEN'>): PublicMetricsAccess {
  if (config.RELAY_METRICS_TOKEN) return 'token';
  return config.NODE_ENV === 'production' ? 'off' : 'open';
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether an `Authorization` header carries the metrics token (always, when none is set); compared in constant time. */
export function metricsTokenAccepted(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const presented = /^Bearer\s+(.+)$/i.exec(authorization?.trim() ?? '')?.[1];
  return presented !== undefined && timingSafeEqual(digest(presented), digest(token));
}

export const METRICS_TOKEN_MESSAGE = 'Metrics need the metrics token: send "Authorization: Bearer <RELAY_METRICS_TOKEN>".';
