import { useEffect, useRef, useSyncExternalStore } from 'react';
import type { Client as WsClient } from 'graphql-ws';

/**
 * The truth about the live connection (graphql-ws), for the live indicators and for the
 * lists' backfill: `live` while the socket is acknowledged, `reconnecting` from the moment it
 * drops (a restart closes it with 1012, a crash or a network cut drops it or times out the
 * keep-alive ping), `offline` when the browser says so or nothing connected for 15 s (still
 * retrying). Every successful connection after a drop bumps `generation`: subscriptions are
 * made again and lists read again what arrived meanwhile.
 */
export type LiveState = 'idle' | 'connecting' | 'live' | 'reconnecting' | 'offline';

interface Snapshot {
  state: LiveState;
  /** Reconnections so far (0 until the first drop heals). */
  generation: number;
  /** Failed tries since the last drop. */
  attempt: number;
}

const OFFLINE_AFTER_MS = 15_000;
let snapshot: Snapshot = { state: 'idle', generation: 0, attempt: 0 };
let droppedAt: number | null = null;
let everConnected = false;
const listeners = new Set<() => void>();

function set(patch: Partial<Snapshot>) {
  snapshot = { ...snapshot, ...patch };
  for (const l of listeners) l();
}

function recompute() {
  if (snapshot.state === 'live' || droppedAt === null) return;
  const offline = (typeof navigator !== 'undefined' && navigator.onLine === false) || Date.now() - droppedAt >= OFFLINE_AFTER_MS;
  set({ state: offline ? 'offline' : 'reconnecting' });
}

/** Jittered exponential backoff between tries, capped near 10 s: 0.5 s, 1 s, 2 s, 4 s, 8 s, 10 s… each times 0.5–1. */
export function retryDelayMs(tries: number): number {
  return Math.min(10_000, 500 * 2 ** tries) * (0.5 + Math.random() / 2);
}

/** Wires the store to the socket client's events (src/lib/graphql.ts). */
export function watchConnection(ws: WsClient): void {
  ws.on('connected', () => {
    const healed = everConnected && droppedAt !== null;
    everConnected = true;
    droppedAt = null;
    set({ state: 'live', attempt: 0, generation: snapshot.generation + (healed ? 1 : 0) });
  });
  ws.on('closed', () => {
    if (!everConnected) return set({ state: 'connecting' });
    droppedAt ??= Date.now();
    set({ state: 'reconnecting', attempt: snapshot.attempt });
    recompute();
  });
  ws.on('connecting', (isRetry) => {
    if (droppedAt !== null && isRetry) set({ attempt: snapshot.attempt + 1 });
    else if (!everConnected) set({ state: 'connecting' });
    recompute();
  });
  setInterval(recompute, 1000);
  window.addEventListener('offline', recompute);
  window.addEventListener('online', recompute);
}

function subscribe(listener: () => void) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

export function useLiveConnection(): Snapshot {
  return useSyncExternalStore(subscribe, () => snapshot);
}

/** Runs `onReconnect` after each reconnection (not on the first connection): read the list again. */
export function useOnReconnect(onReconnect: () => void): void {
  const { generation } = useLiveConnection();
  const latest = useRef(onReconnect);
  useEffect(() => {
    latest.current = onReconnect;
  });
  const first = useRef(generation);
  useEffect(() => {
    if (generation !== first.current) latest.current();
  }, [generation]);
}
