import type { Config } from './config';

/**
 * Connections a worker process keeps open when DATABASE_POOL_MIN is unset: a destination's window starts up to its
 * max_concurrency (default 10) attempts at once, each with a context query, so a burst after a quiet spell (when the
 * pool had shrunk to one or two) opened its connections one by one, and an attempt of another destination queued
 * behind them (docs/internals/delivery.md "Capacity and isolation").
 */
export const WORKER_POOL_MIN = 12;

/** The configuration a process that runs the worker uses: DATABASE_POOL_MIN defaults to WORKER_POOL_MIN. */
export function withWorkerPoolFloor(config: Config): Config {
  return config.DATABASE_POOL_MIN === undefined ? { ...config, DATABASE_POOL_MIN: WORKER_POOL_MIN } : config;
}

/** Connections the pool keeps open: DATABASE_POOL_MIN, never above DATABASE_POOL_MAX. */
export function databasePoolMin(config: Config): number {
  return Math.min(config.DATABASE_POOL_MIN ?? 0, config.DATABASE_POOL_MAX);
}
