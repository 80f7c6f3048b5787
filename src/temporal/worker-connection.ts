import { NativeConnection } from '@temporalio/worker';
import { type TemporalSettings, checkNamespaceAccess, connectionOptions, diagnoseTemporalConnectError } from './client';

/**
 * The worker's connection (the SDK's Rust core), from the same settings as the
 * client's; a misconfiguration throws a ConfigError naming the variable. Kept apart
 * from client.ts so the API process never loads the worker package.
 */
export async function connectTemporalWorker(s: TemporalSettings): Promise<NativeConnection> {
  let connection: NativeConnection;
  try {
    connection = await NativeConnection.connect(connectionOptions(s));
  } catch (err) {
    throw await diagnoseTemporalConnectError(err, s);
  }
  // A secured cluster may authenticate the key or certificate and still not let it poll the namespace.
  if (s.tls || s.apiKey) {
    try {
      await checkNamespaceAccess(connection, s);
    } catch (err) {
      await connection.close();
      throw err;
    }
  }
  return connection;
}
