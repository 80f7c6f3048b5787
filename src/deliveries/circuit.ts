import type { Logger } from '../common/logger';
import { circuitTransitions } from '../metrics/metrics';
import type { SendResult } from '../sending/send-result';

/**
 * The circuit breaker's view of one send (relay_finish_attempt counts the
 * `false`s): false for a connection error or a timeout, true when the
 * destination answered (any HTTP status: it is up), null when the attempt says
 * nothing about the destination (not sent: a transform error, missing
 * configuration, a skipped CLI forward; or a local failure behind the CLI).
 */
export function circuitReachability(result: Pick<SendResult, 'unreachable' | 'statusCode'>): boolean | null {
  if (result.unreachable) return false;
  if (result.statusCode !== null) return true;
  return null;
}

/** One log line and one counter per transition (docs/internals/delivery.md "Capacity and isolation"). */
export function logCircuitTransition(log: Logger, destination: { id: string; type: string }, transition: 'opened' | 'reopened' | 'closed', lastError: string | null): void {
  circuitTransitions.inc({ transition });
  const fields = { destinationId: destination.id, destinationType: destination.type, transition };
  if (transition === 'closed') log.info(fields, 'destination circuit closed: its probe got an answer');
  else log.warn({ ...fields, lastError }, transition === 'opened' ? 'destination circuit opened: attempts deferred until a probe succeeds' : 'destination circuit reopened: the probe failed, longer cool-down');
}
