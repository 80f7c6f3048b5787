import type { AppContainer } from '../app/container';

const draining = new WeakSet<AppContainer>();

/** True once the process has begun shutting down: `/readyz` answers 503 while requests are still served. */
export function isDraining(container: AppContainer): boolean {
  return draining.has(container);
}

/** The wait between leaving `/readyz` and closing the listener: RELAY_DRAIN_DELAY_MS, else 5 s in production, 0 elsewhere. */
export function drainDelayMs(config: AppContainer['config']): number {
  return config.RELAY_DRAIN_DELAY_MS ?? (config.NODE_ENV === 'production' ? 5_000 : 0);
}

/**
 * The first step of an API process's shutdown (SIGTERM): `/readyz` turns 503 so a
 * load balancer stops sending new requests here, and the process keeps serving
 * everything for the drain delay (longer than the balancer's health-check period)
 * before its listener closes. Requests that arrive meanwhile are answered normally.
 */
export async function drainApi(container: AppContainer): Promise<void> {
  draining.add(container);
  const ms = drainDelayMs(container.config);
  if (ms <= 0) return;
  container.log.info({ drainDelayMs: ms }, 'draining: /readyz answers 503; closing the listener after the drain delay');
  await new Promise((resolve) => setTimeout(resolve, ms));
}
