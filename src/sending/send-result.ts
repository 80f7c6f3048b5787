/** The outcome of one HTTP send, as the send activity records it in a DeliveryAttempt. */
export interface SendResult {
  /** A 2xx answer (and, for platforms that answer 200 with `{ ok: false }`, an `ok` body). */
  ok: boolean;
  statusCode: number | null;
  /** First 4096 bytes of the answer, cut on a UTF-8 boundary (docs/concepts.md#events-deliveries-and-attempts). */
  responseBody: string | null;
  responseBodyTruncated: boolean;
  responseHeaders: Record<string, string> | null;
  /** From sending to the answer; null when nothing went out (refused before sending, a `cli` forward the CLI never answered, skipped). */
  latencyMs: number | null;
  /** Timeout / connection error / non-2xx summary / SSRF refusal; null on success. */
  error: string | null;
  /** Exactly the JSON body sent (or that would have been sent, when nothing went out). */
  payloadSent: unknown;
  /** Chat platform 429 (or an active global cooldown): wait this long, do not count an attempt. */
  rateLimited?: { retryAfterMs: number; global: boolean };
  /** Webhook destination 429, or any 503, with `Retry-After`: if counted as a failure, the next retry waits at least this (capped at 1 h). */
  retryAfterMs?: number;
  /** A 503 with `Retry-After`: the receiver asks us to wait; waited out without counting an attempt while the retry schedule allows (decideAttempt). */
  unavailable?: { retryAfterMs: number };
  /** A 410 Gone: the receiver says the URL is gone for good; the attempt fails permanently and the destination is paused. */
  gone?: boolean;
  /** The failure cannot succeed on retry (e.g. SSRF refusal, missing configuration). */
  permanent?: boolean;
  /** No answer at all: a connection error or a timeout (what the destination's circuit breaker counts). */
  unreachable?: boolean;
  /** Why no answer came or nothing was sent, when it is one of these (an Issue's cause, src/issues/issue-cause.ts). */
  failure?: FailureKind;
  /** A `cli` forward not made because the CLI was away or paused: the delivery ends `skipped`, not failed. */
  skipped?: boolean;
}

export type FailureKind =
  | 'timeout'
  | 'connection_refused'
  | 'connection_error'
  | 'transform_error'
  | 'template_error'
  | 'circuit_open'
  /** The delivery's Temporal workflow ended without recording an outcome (src/deliveries/workflow-reconciler.ts): nothing was sent. */
  | 'workflow_ended';

/** One implementation of the stored-body cut, shared with the CLI (it cuts what it reports the same way). */
export { STORED_BODY_LIMIT_BYTES } from '../../packages/cli/src/shared/limits';
export { truncateUtf8 } from '../../packages/cli/src/shared/utf8';

/** A result for a send that never reached the network: no latency to record. */
export function notSent(payload: unknown, error: string, extra: Partial<SendResult> = {}): SendResult {
  return {
    ok: false,
    statusCode: null,
    responseBody: null,
    responseBodyTruncated: false,
    responseHeaders: null,
    latencyMs: null,
    error,
    payloadSent: payload,
    ...extra,
  };
}
