import { NativeConnection } from '@temporalio/worker';
import { type TemporalSettings, connectionOptions, diagnoseTemporalConnectError } from './client';

/**
 * The worker's connection (the SDK's Rust core), from the same settings as the
 * client's; a misconfiguration throws a ConfigError naming the variable. Kept apart
 * from client.ts so the API process never loads the worker package.
 */
export async function connectTemporalWorker(s: TemporalSettings): Promise<NativeConnection> {
  try {
    return await NativeConnection.connect(connectionOptions(s));
  } catch (err) {
    throw await diagnoseTemporalConnectError(err, s);
  }
}
