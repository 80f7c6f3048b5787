import { Client, Connection } from '@temporalio/client';
import type { Config } from '../config/config';
import { tracingClientInterceptors } from '../telemetry/tracing';

/**
 * A lazily-connecting client: the API process starts (and ingress keeps
 * answering 202) while Temporal is down; calls fail until it is back.
 */
export function createTemporalClient(config: Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE'>): Client {
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is not set');
  const connection = Connection.lazy({ address: config.TEMPORAL_ADDRESS });
  return new Client({ connection, namespace: config.TEMPORAL_NAMESPACE, interceptors: tracingClientInterceptors() });
}

export async function temporalIsUp(client: Client, timeoutMs = 2000): Promise<boolean> {
  try {
    await client.connection.withDeadline(Date.now() + timeoutMs, () => client.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  }
}
