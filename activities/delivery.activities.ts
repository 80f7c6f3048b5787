import { sendAttempt } from '../src/deliveries/attempt-pipeline';
import {
  type AttemptOutcome,
  loadAttemptContext,
  markDeliveryCanceled,
  outcomeOfStoredAttempt,
  recordAttempt,
} from '../src/deliveries/attempt-store';
import { decideAttempt, normalizeRetryPolicy } from '../src/deliveries/retry-schedule';
import { withSpan } from '../src/telemetry/tracing';
import { deliveryAttempts, deliveryFirstAttemptSeconds, deliveryRetriesScheduled, deliverySendSeconds } from '../src/metrics/metrics';
import { PlatformCooldowns } from '../src/sending/platform-cooldowns';
import { CliForwarder } from '../src/cli-sessions/cli-forwarder';
import type { ActivityDeps } from './deps';

export type { AttemptOutcome } from '../src/deliveries/attempt-store';

export function createDeliveryActivities(deps: ActivityDeps) {
  const knex = () => deps.orm.em.getConnection().getKnex();
  const cooldowns = new PlatformCooldowns(deps.orm);
  const cliForwarder = new CliForwarder(deps);

  return {
    /**
     * Attempt n of a delivery: route, transform, render, send, record. Idempotent
     * per (delivery, attempt number): run again after a crash it returns what
     * was recorded instead of sending twice (a send whose record was lost is
     * sent again: delivery is at least once, RULINGS.md §30).
     */
    async attemptDelivery(input: { deliveryId: string; attemptNumber: number }): Promise<AttemptOutcome> {
      const { deliveryId, attemptNumber } = input;
      const ctx = await loadAttemptContext(knex(), deliveryId, attemptNumber);
      if (!ctx) return { kind: 'gone' };
      if (ctx.storedAttempt) return outcomeOfStoredAttempt(ctx.storedAttempt, Date.now());
      if (ctx.status === 'canceled') return { kind: 'canceled' };
      if (ctx.status === 'success' || ctx.status === 'failed') return { kind: ctx.status };

      const result = await withSpan('relay.send', { 'relay.delivery_id': deliveryId, 'relay.destination_type': ctx.destination.type }, () =>
        sendAttempt(ctx, { ...deps, cooldowns, cliForwarder, knex: knex() }),
      );
      const decision = decideAttempt(result, attemptNumber, normalizeRetryPolicy(ctx.destination.retryPolicy));
      const labels = { destination_type: ctx.destination.type };
      deliveryAttempts.inc({ ...labels, outcome: decision.kind });
      deliverySendSeconds.observe(labels, result.latencyMs / 1000);
      if (decision.kind === 'rate_limited') return decision;
      const nextRetryAt = decision.kind === 'retrying' ? new Date(Date.now() + decision.delayMs) : null;
      const outcome = await recordAttempt(knex(), { ctx, attemptNumber, status: decision.kind, nextRetryAt, result });
      if (outcome.kind === 'retrying') deliveryRetriesScheduled.inc(labels);
      if (attemptNumber === 1) deliveryFirstAttemptSeconds.observe(labels, (Date.now() - ctx.receivedAt.getTime()) / 1000);
      return outcome;
    },

    /** Records a cancel that reached the workflow (API signal, or Temporal UI/CLI cancel). Idempotent. */
    async cancelDelivery(input: { deliveryId: string }): Promise<void> {
      await knex().transaction((trx) => markDeliveryCanceled(trx, input.deliveryId, 'Canceled before this attempt was made.'));
    },
  };
}
