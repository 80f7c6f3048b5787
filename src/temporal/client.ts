import { isIP } from 'node:net';
import tls from 'node:tls';
import { Client, Connection, type TLSConfig } from '@temporalio/client';
import type { Config } from '../config/config';
import { ConfigError } from '../config/config-error';
import type { TemporalTls } from '../config/temporal-tls';
import { tracingClientInterceptors } from '../telemetry/tracing';

/**
 * The one place Temporal connections are built: the API's client, the worker's
 * NativeConnection (src/temporal/worker-connection.ts; the dispatcher starts
 * workflows through it), `relay migrate`'s search-attribute registration and the
 * launchers all take these settings.
 */
export interface TemporalSettings {
  address: string;
  namespace: string;
  /** Undefined: plain TCP (src/config/temporal-tls.ts). */
  tls?: TemporalTls;
  /** Sent as `authorization: Bearer <key>` (Temporal Cloud); implies TLS. */
  apiKey?: string;
}

type TemporalConfig = Pick<Config, 'TEMPORAL_ADDRESS' | 'TEMPORAL_NAMESPACE' | 'TEMPORAL_API_KEY' | 'temporalTls'>;

export function temporalSettings(config: TemporalConfig): TemporalSettings {
  if (!config.TEMPORAL_ADDRESS) throw new ConfigError('TEMPORAL_ADDRESS: is not set');
  return {
    address: config.TEMPORAL_ADDRESS,
    namespace: config.TEMPORAL_NAMESPACE,
    tls: config.temporalTls,
    apiKey: config.TEMPORAL_API_KEY || undefined,
  };
}

/** The options both connection kinds share (their TLS and API-key options have one shape); src/temporal/worker-connection.ts uses them too. */
export function connectionOptions(s: TemporalSettings): { address: string; tls?: TLSConfig; apiKey?: string } {
  return {
    address: s.address,
    ...(s.tls || s.apiKey ? { tls: { ...s.tls } } : {}),
    ...(s.apiKey ? { apiKey: s.apiKey } : {}),
  };
}

/**
 * Turns a connection failure caused by the settings (TLS trust, the client
 * certificate, the API key) into a ConfigError naming the variable to look at:
 * start-up stops with that one line. Anything else (the server is down) is returned
 * as it was.
 */
export function explainTemporalConnectError(err: unknown, s: TemporalSettings): unknown {
  const message = String((err as Error)?.message ?? err);
  const cause = (err as { cause?: Error })?.cause?.message ?? '';
  const text = `${message} ${cause}`;
  const short = message.split('\n')[0].slice(0, 300);
  const caVar = 'TEMPORAL_TLS_SERVER_CA_CERT_PATH';
  if (/UnknownIssuer|unable to (verify|get local issuer)|self[- ]signed certificate|certificate verify failed|invalid peer certificate/i.test(text)) {
    if (/NotValidForName|Hostname\/IP does not match|ERR_TLS_CERT_ALTNAME_INVALID/i.test(text)) {
      return new ConfigError(`TEMPORAL_TLS_SERVER_NAME: the Temporal server's certificate does not name ${s.tls?.serverNameOverride ?? s.address} (${short})`);
    }
    return new ConfigError(`${caVar}: the Temporal server's certificate is not signed by this CA${s.tls?.serverRootCACertificate ? '' : ' (none given: the system CAs were used)'} (${short})`);
  }
  if (/NotValidForName|Hostname\/IP does not match|ERR_TLS_CERT_ALTNAME_INVALID/i.test(text)) {
    return new ConfigError(`TEMPORAL_TLS_SERVER_NAME: the Temporal server's certificate does not name ${s.tls?.serverNameOverride ?? s.address} (${short})`);
  }
  if (/certificate required|bad certificate|unknown ca|CertificateRequired|BadCertificate|UnknownCA|ALERT|closed the connection right after the TLS handshake/i.test(text) && s.tls) {
    return new ConfigError(
      s.tls.clientCertPair
        ? `TEMPORAL_TLS_CLIENT_CERT_PATH: the Temporal server refused the client certificate (${short})`
        : `TEMPORAL_TLS_CLIENT_CERT_PATH: the Temporal server requires a client certificate (mutual TLS) (${short})`,
    );
  }
  if (/wrong version number|packet length too long|WRONG_VERSION_NUMBER|InvalidContentType|corrupt message/i.test(text) && s.tls) {
    return new ConfigError(`TEMPORAL_TLS: the Temporal server at ${s.address} does not speak TLS (${short})`);
  }
  if (/Unauthenticated|UNAUTHENTICATED|PermissionDenied|PERMISSION_DENIED|Request unauthorized|unauthorized/.test(text)) {
    if (!s.apiKey) return new ConfigError(`TEMPORAL_API_KEY: the Temporal server requires credentials (${short})`);
    const expiry = jwtExpiry(s.apiKey);
    return new ConfigError(
      expiry && expiry.getTime() <= Date.now()
        ? `TEMPORAL_API_KEY: refused by the Temporal server: the key expired at ${expiry.toISOString()} (${short})`
        : `TEMPORAL_API_KEY: refused by the Temporal server: not signed by a key it trusts, or revoked (${short})`,
    );
  }
  return err;
}

/** The `exp` of a key that is a JWT (Temporal Cloud's keys and a self-hosted JWT authorizer's tokens), read without checking it. */
export function jwtExpiry(key: string): Date | undefined {
  const payload = key.split('.')[1];
  if (!payload) return undefined;
  try {
    const { exp } = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { exp?: unknown };
    return typeof exp === 'number' ? new Date(exp * 1000) : undefined;
  } catch {
    return undefined;
  }
}

/** gRPC status of a call the server's authorizer refused. */
const PERMISSION_DENIED = 7;
/** No relay workflow has this id (src/deliveries use delivery ids). */
const ACCESS_CHECK_WORKFLOW_ID = 'relay-access-check';

/**
 * The server authenticates a key on every call, but GetSystemInfo (what connecting makes) is
 * allowed to anyone: a key it accepts may still lack the namespace permission the relay needs
 * to start, signal and cancel workflows and poll their tasks (Temporal's `write` role).
 * Signalling a workflow that does not exist needs exactly that and changes nothing: the server
 * answers NotFound when allowed, PermissionDenied when not. Any other answer (the server is
 * down) is left to the caller's own handling.
 */
export async function checkNamespaceAccess(
  connection: Pick<Connection, 'withDeadline'> & { workflowService: Pick<Connection['workflowService'], 'signalWorkflowExecution'> },
  s: TemporalSettings,
  timeoutMs = 5000,
): Promise<void> {
  try {
    await connection.withDeadline(Date.now() + timeoutMs, () =>
      connection.workflowService.signalWorkflowExecution({
        namespace: s.namespace,
        workflowExecution: { workflowId: ACCESS_CHECK_WORKFLOW_ID },
        signalName: ACCESS_CHECK_WORKFLOW_ID,
        identity: 'relay start-up check',
      }),
    );
  } catch (err) {
    const refused = explainPermissionDenied(err, s, 'write in', 'write');
    if (refused) throw refused;
  }
}

/**
 * A call the server's authorizer refused (PermissionDenied) after accepting the credential,
 * as a ConfigError naming it and the role the call needs (`<namespace>:<role>` in the
 * default JWT claim mapper's terms); undefined for any other error.
 */
export function explainPermissionDenied(err: unknown, s: TemporalSettings, action: string, role: 'read' | 'write' | 'admin'): ConfigError | undefined {
  if ((err as { code?: unknown })?.code !== PERMISSION_DENIED) return undefined;
  const short = String((err as Error).message).split('\n')[0].slice(0, 300);
  const needs = `may not ${action} namespace ${s.namespace} (that needs the \`${s.namespace}:${role}\` permission or more)`;
  if (s.apiKey) return new ConfigError(`TEMPORAL_API_KEY: the Temporal server accepted the key, but it ${needs} (${short})`);
  if (s.tls?.clientCertPair) return new ConfigError(`TEMPORAL_TLS_CLIENT_CERT_PATH: the Temporal server accepted the certificate, but its holder ${needs} (${short})`);
  return new ConfigError(`TEMPORAL_API_KEY: the Temporal server requires credentials to use namespace ${s.namespace} (${short})`);
}

/** An empty HTTP/2 client preface and SETTINGS frame: a gRPC server answers with its own SETTINGS. */
const H2_PREFACE = Buffer.concat([Buffer.from('PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n'), Buffer.from([0, 0, 0, 4, 0, 0, 0, 0, 0])]);

/**
 * One TLS connection to the frontend with the same settings, to learn why the SDK's
 * connection failed: the SDKs retry a failed handshake until their deadline and then
 * report only "deadline exceeded" or "connection closed", while Node's TLS names the
 * cause (untrusted certificate, wrong name, certificate required or refused, not TLS).
 * Resolves with the TLS error, a closed-after-handshake error, or undefined when the
 * server answered over HTTP/2 (TLS is fine) or did not answer in time.
 */
export function probeTemporalTls(s: TemporalSettings, timeoutMs = 5000): Promise<Error | undefined> {
  const match = /^\[?([^\]]+?)\]?:(\d+)$/.exec(s.address);
  if (!match) return Promise.resolve(undefined);
  const [, host, port] = match;
  const name = s.tls?.serverNameOverride ?? host;
  return new Promise((resolve) => {
    let handshaken = false;
    const socket = tls.connect({
      host,
      port: Number(port),
      servername: isIP(name) ? undefined : name,
      checkServerIdentity: (_host, cert) => tls.checkServerIdentity(name, cert),
      ca: s.tls?.serverRootCACertificate,
      cert: s.tls?.clientCertPair?.crt,
      key: s.tls?.clientCertPair?.key,
      ALPNProtocols: ['h2'],
    });
    const done = (result: Error | undefined) => {
      clearTimeout(timer);
      socket.removeAllListeners();
      socket.on('error', () => undefined);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => done(undefined), timeoutMs);
    socket.once('secureConnect', () => {
      handshaken = true;
      socket.write(H2_PREFACE);
    });
    socket.once('data', () => done(undefined));
    socket.once('error', (err) => done(err));
    socket.once('close', () => done(new Error(handshaken ? 'the server closed the connection right after the TLS handshake' : 'the server closed the connection during the TLS handshake')));
  });
}

/** explainTemporalConnectError, and when that finds no cause while TLS is on, a TLS probe's answer explained the same way. */
export async function diagnoseTemporalConnectError(err: unknown, s: TemporalSettings): Promise<unknown> {
  const explained = explainTemporalConnectError(err, s);
  if (explained instanceof ConfigError || !(s.tls || s.apiKey)) return explained;
  const probed = await probeTemporalTls(s);
  if (!probed) return explained;
  const reason = explainTemporalConnectError(new Error(`${(probed as NodeJS.ErrnoException).code ?? ''} ${probed.message}`.trim()), s);
  return reason instanceof ConfigError ? reason : explained;
}

/** A lazily-connecting client: the API process starts (and ingress keeps answering 202) while Temporal is down. */
export function createTemporalClient(s: TemporalSettings): Client {
  const connection = Connection.lazy(connectionOptions(s));
  return new Client({ connection, namespace: s.namespace, interceptors: tracingClientInterceptors() });
}

/** An eager client connection (a one-off: search attributes, namespace set-up, tests). */
export async function connectTemporal(s: TemporalSettings, connectTimeoutMs?: number): Promise<Connection> {
  try {
    return await Connection.connect({ ...connectionOptions(s), ...(connectTimeoutMs ? { connectTimeout: connectTimeoutMs } : {}) });
  } catch (err) {
    throw await diagnoseTemporalConnectError(err, s);
  }
}

/**
 * At start-up: one call through the client, and the namespace permission check. A refused
 * certificate or key, or one without the permission, throws a ConfigError (start-up stops); an unreachable server only returns false, since
 * the API keeps taking webhooks while Temporal is down.
 */
export async function checkTemporalConnection(client: Client, s: TemporalSettings, timeoutMs = 5000): Promise<boolean> {
  try {
    await client.connection.withDeadline(Date.now() + timeoutMs, () => client.workflowService.getSystemInfo({}));
  } catch (err) {
    const explained = await diagnoseTemporalConnectError(err, s);
    if (explained instanceof ConfigError) throw explained;
    return false;
  }
  await checkNamespaceAccess(client.connection, s, timeoutMs);
  return true;
}

export async function temporalIsUp(client: Client, timeoutMs = 2000): Promise<boolean> {
  try {
    await client.connection.withDeadline(Date.now() + timeoutMs, () => client.workflowService.getSystemInfo({}));
    return true;
  } catch {
    return false;
  }
}
