import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';

/**
 * A graphql-ws client as a dashboard uses it, with a pull interface for
 * tests: `next()` resolves with the next result (data or errors) of the
 * subscription, `closed` with the socket's close event.
 */
export interface LiveSubscription<T = any> {
  next(timeoutMs?: number): Promise<{ data?: T; errors?: Array<{ message: string; extensions?: Record<string, unknown> }> }>;
  dispose(): Promise<void>;
}

export function liveClient(baseUrl: string, token?: string): { client: Client; closed: Promise<{ code: number; reason: string }> } {
  let onClosed!: (e: { code: number; reason: string }) => void;
  const closed = new Promise<{ code: number; reason: string }>((resolve) => (onClosed = resolve));
  const client = createClient({
    url: `${baseUrl.replace(/^http/, 'ws')}/graphql`,
    webSocketImpl: WebSocket,
    connectionParams: token ? { authorization: `Bearer ${token}` } : {},
    retryAttempts: 0,
    lazy: false,
    onNonLazyError: () => undefined,
    on: { closed: (e) => onClosed(e as { code: number; reason: string }) },
  });
  return { client, closed };
}

export function subscribe<T = any>(client: Client, query: string, variables: Record<string, unknown> = {}): LiveSubscription<T> {
  const results: any[] = [];
  const waiters: Array<(r: any) => void> = [];
  const deliver = (r: any) => {
    const waiter = waiters.shift();
    if (waiter) waiter(r);
    else results.push(r);
  };
  const unsubscribe = client.subscribe(
    { query, variables },
    { next: deliver, error: (err) => deliver({ errors: Array.isArray(err) ? err : [{ message: String((err as Error).message ?? err) }] }), complete: () => undefined },
  );
  return {
    next: (timeoutMs = 10_000) =>
      results.length > 0
        ? Promise.resolve(results.shift())
        : new Promise((resolve, reject) => {
            const timer = setTimeout(() => reject(new Error(`no subscription result within ${timeoutMs} ms`)), timeoutMs);
            waiters.push((r) => {
              clearTimeout(timer);
              resolve(r);
            });
          }),
    dispose: async () => unsubscribe(),
  };
}

/** Resolves once `check` passes or fails after `timeoutMs`. */
export async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}
