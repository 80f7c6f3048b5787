import { Client } from 'pg';
import type { Logger } from '../common/logger';
import { NOTIFY } from '../common/notify-channels';
import type { EndpointCache } from './endpoint-cache';

/**
 * LISTEN on `relay_endpoints` with a dedicated connection; each payload
 * invalidates cache entries. While disconnected, notifications may be missed,
 * so (re)connecting empties the cache (entries also expire by TTL). Resolves
 * once the first LISTEN is in place or has failed (then it keeps retrying).
 */
export async function listenForEndpointChanges(databaseUrl: string, cache: EndpointCache, log: Logger): Promise<() => Promise<void>> {
  let client: Client | null = null;
  let closed = false;
  let retry: NodeJS.Timeout | undefined;

  const connect = async (): Promise<void> => {
    const c = new Client({ connectionString: databaseUrl });
    c.on('notification', (msg) => cache.invalidate(msg.payload ?? ''));
    c.on('error', (err) => {
      log.warn({ err }, 'endpoint change listener lost its connection; reconnecting');
      c.removeAllListeners('end');
      void c.end().catch(() => undefined);
      scheduleReconnect();
    });
    c.on('end', scheduleReconnect);
    await c.connect();
    await c.query(`listen ${NOTIFY.endpointsChanged}`);
    client = c;
    cache.clear();
  };
  const scheduleReconnect = () => {
    client = null;
    if (closed || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch((err) => {
        log.warn({ err }, 'endpoint change listener could not connect; retrying');
        scheduleReconnect();
      });
    }, 1000);
    retry.unref();
  };

  await connect().catch((err) => {
    log.warn({ err }, 'endpoint change listener could not connect; retrying');
    scheduleReconnect();
  });
  return async () => {
    closed = true;
    clearTimeout(retry);
    const c = client as Client | null;
    if (c) {
      c.removeAllListeners('end');
      await c.end().catch(() => undefined);
    }
  };
}
