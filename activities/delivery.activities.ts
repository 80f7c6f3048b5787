import { ATTEMPT_STATUS_OUTCOMES } from '../packages/cli/src/shared/outcomes';
import { sendAttempt } from '../src/deliveries/attempt-pipeline';
import {
  type AttemptContext,
  type AttemptOutcome,
  loadAttemptContext,
  markDeliveryCanceled,
  outcomeOfStoredAttempt,
  recordAttempt,
} from '../src/deliveries/attempt-store';
import { admissionAction } from '../src/deliveries/admission';
import { circuitReachability, logCircuitTransition } from '../src/deliveries/circuit';
import { type AttemptDecision, decideAttempt, type DeliveryProgress, normalizeRetryPolicy, scheduleDeadline, scheduledAttempt } from '../src/deliveries/retry-schedule';
import { withSpan } from '../src/telemetry/tracing';
import { deliveryAttempts, deliveryDeferrals, deliveryFirstAttemptSeconds, deliveryRetriesScheduled, deliverySendSeconds } from '../src/metrics/metrics';
import { PlatformCooldowns } from '../src/sending/platform-cooldowns';
import { notSent, type SendResult } from '../src/sending/send-result';
import { CliForwarder } from '../src/cli-sessions/cli-forwarder';
import { activityScheduledAt, attemptTimer } from '../src/worker/attempt-timing';
import type { ActivityDeps } from './deps';

export type { AttemptOutcome } from '../src/deliveries/attempt-store';

/** A lease outlives its attempt's longest possible run (send limit, a CLI session's delay, margin) so a crashed worker's leases expire. */
const LEASE_MARGIN_SECONDS = 30;

export function createDeliveryActivities(deps: ActivityDeps) {
  const knex = () => deps.orm.em.getConnection().getKnex();
  const { config } = deps;
  const cooldowns = new PlatformCooldowns(deps.orm);
  const cliForwarder = new CliForwarder(deps);
  const admissionRequest = {
    defaultLimit: config.RELAY_DESTINATION_MAX_CONCURRENCY,
    leaseSeconds: config.RELAY_DELIVERY_TIMEOUT_MS / 1000 + LEASE_MARGIN_SECONDS,
  };
  const circuitSettings = {
    threshold: config.RELAY_CIRCUIT_FAILURE_THRESHOLD,
    cooldownSeconds: config.RELAY_CIRCUIT_COOLDOWN_SECONDS,
    maxCooldownSeconds: config.RELAY_CIRCUIT_MAX_COOLDOWN_SECONDS,
  };

  /**
   * Decides what one send means for the delivery and records it (releasing the lease and updating the circuit in the
   * same statement): an answer that is waited out is recorded too, as a `rate_limited` attempt.
   */
  async function finish(ctx: AttemptContext, progress: DeliveryProgress, result: SendResult, attemptId?: string): Promise<AttemptOutcome> {
    const { attemptNumber } = progress;
    const policy = normalizeRetryPolicy(ctx.destination.retryPolicy);
    const now = Date.now();
    const decision = decideAttempt(result, scheduledAttempt(progress), policy, {
      now,
      deadline: scheduleDeadline(ctx.createdAt, policy),
      waits: progress.waits ?? 0,
    });
    const labels = { destination_type: ctx.destination.type };
    deliveryAttempts.inc({ ...labels, outcome: ATTEMPT_STATUS_OUTCOMES[decision.kind] });
    if (result.latencyMs !== null) deliverySendSeconds.observe(labels, result.latencyMs / 1000);
    const nextRetryAt = decision.kind === 'retrying' || decision.kind === 'rate_limited' ? new Date(now + decision.delayMs) : null;
    const { circuitTransition, paused, ...outcome } = await recordAttempt(knex(), {
      ctx,
      attemptNumber,
      attemptId,
      status: decision.kind,
      nextRetryAt,
      result: { ...result, error: explained(result.error, decision) },
      circuit: { reachable: circuitReachability(result), ...circuitSettings },
    });
    if (circuitTransition) logCircuitTransition(deps.log, ctx.destination, circuitTransition, result.error);
    if (paused) deps.log.warn({ destinationId: ctx.destination.id, deliveryId: ctx.deliveryId }, 'destination paused: the receiver answered 410 Gone');
    if (outcome.kind === 'retrying') deliveryRetriesScheduled.inc(labels);
    if (attemptNumber === 1) deliveryFirstAttemptSeconds.observe(labels, (Date.now() - ctx.receivedAt.getTime()) / 1000);
    return outcome;
  }

  return {
    /**
     * Attempt n of a delivery: admission (the destination's max_concurrency and
     * circuit breaker), route, transform, render, send, record. Idempotent per
     * (delivery, attempt number): run again after a crash it returns what was
     * recorded instead of sending twice (a send whose record was lost is sent
     * again: delivery is at least once, docs/concepts.md#retries-and-dead-letters). A throttled or deferred
     * attempt sends and records nothing: the workflow waits on a timer and asks
     * again with the same attempt number (`waitRound` counts those refusals).
     */
    async attemptDelivery(input: { deliveryId: string } & DeliveryProgress): Promise<AttemptOutcome> {
      const { deliveryId, attemptNumber } = input;
      const timing = attemptTimer().begin(deliveryId, activityScheduledAt());
      const ctx = await loadAttemptContext(knex(), deliveryId, attemptNumber, admissionRequest);
      timing.contextLoaded();
      if (!ctx) return { kind: 'gone' };
      if (ctx.storedAttempt) return outcomeOfStoredAttempt(ctx.storedAttempt, Date.now());
      if (ctx.status === 'canceled') return { kind: 'canceled' };
      if (ctx.status === 'success' || ctx.status === 'failed' || ctx.status === 'skipped') return { kind: ctx.status };

      const action = admissionAction(ctx.admission ?? { verdict: 'admitted', retryAt: null }, {
        now: Date.now(),
        deadline: scheduleDeadline(ctx.createdAt, normalizeRetryPolicy(ctx.destination.retryPolicy)),
        waitRound: input.waitRound ?? 0,
        throttledMs: input.throttledMs ?? 0,
        random: Math.random,
      });
      const labels = { destination_type: ctx.destination.type };
      switch (action.kind) {
        case 'throttled':
        case 'deferred':
          deliveryDeferrals.inc({ ...labels, reason: action.kind });
          timing.end({ destinationId: ctx.destination.id, attemptNumber, outcome: action.kind }, Date.now());
          return action;
        case 'expired':
          // The circuit stayed open past the retry schedule's end, or the throttled waits ran out: dead-lettered without a send (never immortal).
          return finish(ctx, input, notSent(ctx.payload, action.error, { permanent: true, failure: action.failure }));
        case 'send':
          break;
      }

      const result = await withSpan('relay.send', { 'relay.delivery_id': deliveryId, 'relay.destination_type': ctx.destination.type }, () =>
        sendAttempt(ctx, { ...deps, cooldowns, cliForwarder, knex: knex() }),
      );
      if ('forwardId' in result) return { kind: 'awaiting_cli', forwardId: result.forwardId, waitMs: result.waitMs };
      timing.end({ destinationId: ctx.destination.id, attemptNumber, sendMs: result.latencyMs }, Date.now() - (result.latencyMs ?? 0));
      return finish(ctx, input, result);
    },

    /**
     * Completes a `cli` attempt after the workflow's wait (the CLI's answer
     * signalled, or the wait ran out): takes the answer and records the attempt.
     * Idempotent: a second run finds the attempt recorded.
     */
    async completeCliAttempt(input: { deliveryId: string; forwardId: string; waitMs: number } & DeliveryProgress): Promise<AttemptOutcome> {
      const ctx = await loadAttemptContext(knex(), input.deliveryId, input.attemptNumber);
      if (!ctx) return { kind: 'gone' };
      if (ctx.storedAttempt) return outcomeOfStoredAttempt(ctx.storedAttempt, Date.now());
      const result = (await cliForwarder.collect(input.forwardId, input.waitMs)) ?? notSent(ctx.payload, 'the CLI forward was lost before its answer was read');
      // Recorded under the forward's id: the attempt was made when the forward was handed to the CLI (cliMissedEvents relies on it).
      return finish(ctx, input, result, input.forwardId);
    },

    /** Records a cancel that reached the workflow (API signal, or Temporal UI/CLI cancel). Idempotent. */
    async cancelDelivery(input: { deliveryId: string }): Promise<void> {
      await knex().transaction((trx) => markDeliveryCanceled(trx, input.deliveryId, 'Canceled before this attempt was made.'));
    },
  };
}

/** The recorded error says what became of an answer that asked to wait: waited out, or counted and why. */
function explained(error: string | null, decision: AttemptDecision): string | null {
  if (decision.kind === 'rate_limited') return `${error ?? 'asked to wait'}; waited out, not counted towards max_attempts`;
  if ((decision.kind === 'retrying' || decision.kind === 'failed') && decision.note) return `${error ?? 'asked to wait'}; ${decision.note}`;
  return error;
}
