import type { Knex } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ConflictError, NotFoundError } from '../common/errors';
import { isUuid, uuidv7 } from '../common/ids';
import { cursorFilter, type Page, type PageRequest, paginationQuery, toPage } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import { parseInput } from '../common/validation';
import { Event } from '../events/event.entity';
import { type DeliveryToStart, signalDeliveryCancel } from '../temporal/delivery-workflows';
import { markDeliveryCanceled } from './attempt-store';
import { DeliveryAttempt } from './delivery-attempt.entity';
import { startDeliveries } from './delivery-dispatcher';
import { Delivery } from './delivery.entity';

/**
 * What users do to deliveries (docs/delivery.md#replay-cancel-and-bulk-actions): cancel a queued or
 * retrying delivery, replay an event or dead-lettered deliveries, list the
 * dead-letter queue (reads: delivery-query.service.ts). Every query is scoped to `ctx.project.id`; a
 * delivery of another project is a 404. REST and GraphQL both call these.
 */

const knexOf = (ctx: ProjectContext): Knex => ctx.em.getConnection().getKnex();
const uuidArray = (ids: readonly string[]) => `{${ids.join(',')}}`;

async function findDelivery(ctx: ProjectContext, deliveryId: string): Promise<Delivery> {
  const delivery = isUuid(deliveryId) ? await ctx.em.findOne(Delivery, { id: deliveryId, projectId: ctx.project.id }) : null;
  if (!delivery) throw new NotFoundError('Delivery', deliveryId);
  return delivery;
}

export async function getDelivery(ctx: ProjectContext, deliveryId: string): Promise<Delivery> {
  return findDelivery(ctx, deliveryId);
}

/**
 * Cancels a queued or retrying delivery: the delivery and its last attempt
 * become `canceled` at once, then its workflow is told to stop (if Temporal is
 * unreachable it stops when its timer fires and finds the delivery canceled).
 */
export async function cancelDelivery(ctx: ProjectContext, deliveryId: string): Promise<Delivery> {
  const delivery = await findDelivery(ctx, deliveryId);
  const changed = await knexOf(ctx).transaction((trx) =>
    markDeliveryCanceled(trx, delivery.id, 'Canceled by a user before this attempt was made.'),
  );
  if (!changed) {
    throw new ConflictError(
      `Delivery ${delivery.id} is ${delivery.status}: only a queued or retrying delivery can be canceled.`,
      { status: delivery.status },
      'delivery_not_cancelable',
    );
  }
  await signalCancel(ctx, [delivery.id]);
  await ctx.em.refresh(delivery);
  return delivery;
}

/** Cancels the delivery an attempt belongs to (the attempts API names attempts, not deliveries). */
export async function cancelAttempt(ctx: ProjectContext, attemptId: string): Promise<Delivery> {
  const attempt = isUuid(attemptId)
    ? await ctx.em.findOne(DeliveryAttempt, { id: attemptId, delivery: { projectId: ctx.project.id } })
    : null;
  if (!attempt) throw new NotFoundError('Delivery attempt', attemptId);
  return cancelDelivery(ctx, attempt.delivery.id);
}

async function signalCancel(ctx: ProjectContext, deliveryIds: readonly string[]): Promise<void> {
  await Promise.all(
    deliveryIds.map((id) =>
      signalDeliveryCancel(ctx.container.temporal, id).catch((err) =>
        ctx.container.log.warn({ err, deliveryId: id }, 'cancel signal not delivered; the workflow stops at its next wake-up'),
      ),
    ),
  );
}

interface ReplayTarget {
  eventId: string;
  destinationId: string;
  endpointId: string;
  eventType: string;
  endpointSlug: string;
  replayOfId: string | null;
}

/**
 * Creates replay deliveries in one transaction: each supersedes (cancels) a
 * delivery of the same event and destination that is waiting for a retry.
 * Then starts their workflows; a start that fails is retried by the dispatcher's sweep.
 */
async function createReplays(ctx: ProjectContext, targets: ReplayTarget[]): Promise<Delivery[]> {
  if (targets.length === 0) return [];
  const superseded: string[] = [];
  const toStart: DeliveryToStart[] = [];
  await knexOf(ctx).transaction(async (trx) => {
    for (const t of targets) {
      const { rows } = await trx.raw(
        `select id from deliveries where event_id = ? and destination_id = ? and status = 'retrying' order by id for update`,
        [t.eventId, t.destinationId],
      );
      for (const r of rows) {
        if (await markDeliveryCanceled(trx, r.id, 'Superseded by a replay.')) superseded.push(r.id);
      }
      const id = uuidv7();
      await trx.raw(
        'insert into deliveries (id, event_id, destination_id, endpoint_id, project_id, replay_of_id) values (?, ?, ?, ?, ?, ?)',
        [id, t.eventId, t.destinationId, t.endpointId, ctx.project.id, t.replayOfId],
      );
      toStart.push({ deliveryId: id, eventId: t.eventId, destinationId: t.destinationId, projectId: ctx.project.id, endpointSlug: t.endpointSlug, eventType: t.eventType });
    }
  });
  await signalCancel(ctx, superseded);
  await startDeliveries(ctx.container, toStart);
  return ctx.em.find(Delivery, { id: { $in: toStart.map((d) => d.deliveryId) } }, { orderBy: { id: 'asc' } });
}

/**
 * Replays an event (docs/delivery.md#replay-cancel-and-bulk-actions): a new delivery to every destination
 * linked to its endpoint now, active and accepting its type, with the current
 * link configuration. Returns the new deliveries (none when nothing is linked).
 */
export async function replayEvent(ctx: ProjectContext, eventId: string): Promise<Delivery[]> {
  const event = isUuid(eventId) ? await ctx.em.findOne(Event, { id: eventId, projectId: ctx.project.id }) : null;
  if (!event) throw new NotFoundError('Event', eventId);
  const { rows } = await knexOf(ctx).raw(
    `select t.id as destination_id, ep.slug as endpoint_slug,
            (select max(d.id::text)::uuid from deliveries d where d.event_id = ? and d.destination_id = t.id) as replay_of_id
       from endpoint_destinations l
       join destinations t on t.id = l.destination_id and t.is_active
       join webhook_endpoints ep on ep.id = l.endpoint_id
      where l.endpoint_id = ? and (t.event_types = '[]'::jsonb or t.event_types @> to_jsonb(?::text))
      order by t.id`,
    [event.id, event.endpointId, event.eventType],
  );
  return createReplays(
    ctx,
    rows.map((r: Record<string, string | null>) => ({
      eventId: event.id,
      destinationId: r.destination_id!,
      endpointId: event.endpointId,
      eventType: event.eventType,
      endpointSlug: r.endpoint_slug!,
      replayOfId: r.replay_of_id,
    })),
  );
}

/**
 * A new delivery of one event to one destination only (the `listen` CLI's `r`
 * key): other destinations are untouched. The destination must be in the project.
 */
export async function replayEventToDestination(ctx: ProjectContext, eventId: string, destinationId: string): Promise<Delivery> {
  const event = isUuid(eventId) ? await ctx.em.findOne(Event, { id: eventId, projectId: ctx.project.id }) : null;
  if (!event) throw new NotFoundError('Event', eventId);
  const { rows } = await knexOf(ctx).raw(
    `select ep.slug as endpoint_slug,
            (select max(d.id::text)::uuid from deliveries d where d.event_id = ? and d.destination_id = t.id) as replay_of_id
       from destinations t, webhook_endpoints ep
      where t.id = ? and t.project_id = ? and ep.id = ?`,
    [event.id, destinationId, ctx.project.id, event.endpointId],
  );
  if (!rows[0]) throw new NotFoundError('Destination', destinationId);
  const [delivery] = await createReplays(ctx, [
    { eventId: event.id, destinationId, endpointId: event.endpointId, eventType: event.eventType, endpointSlug: rows[0].endpoint_slug, replayOfId: rows[0].replay_of_id },
  ]);
  return delivery;
}

export const replayDeadLettersInput = z.object({
  delivery_ids: z.array(z.uuid()).min(1).max(100),
});

/**
 * Replays dead-lettered deliveries (one or many): each gets a new delivery
 * (`replay_of_id` = the dead letter) with the current link configuration, and
 * leaves the dead-letter queue. All or nothing: an id that is not a dead letter
 * of this project, or was already replayed, fails the whole request.
 */
export async function replayDeadLetters(ctx: ProjectContext, input: unknown): Promise<Delivery[]> {
  const { delivery_ids } = parseInput(replayDeadLettersInput, input);
  const ids = [...new Set(delivery_ids)];
  const { rows } = await knexOf(ctx).raw(
    `select d.id, d.event_id, d.destination_id, d.endpoint_id, d.dead_lettered_at, e.event_type, ep.slug as endpoint_slug,
            exists (select 1 from deliveries r where r.replay_of_id = d.id) as replayed
       from deliveries d
       join events e on e.id = d.event_id
       join webhook_endpoints ep on ep.id = d.endpoint_id
      where d.project_id = ? and d.id = any(?::uuid[])
      order by d.id`,
    [ctx.project.id, uuidArray(ids)],
  );
  const missing = ids.find((id) => !rows.some((r: { id: string }) => r.id === id));
  if (missing) throw new NotFoundError('Delivery', missing);
  const notDead = rows.find((r: { dead_lettered_at: Date | null; replayed: boolean }) => !r.dead_lettered_at || r.replayed);
  if (notDead) {
    throw new ConflictError(
      `Delivery ${notDead.id} is not in the dead-letter queue${notDead.replayed ? ' (it was already replayed)' : ''}.`,
      { delivery_id: notDead.id },
      'not_dead_lettered',
    );
  }
  return createReplays(
    ctx,
    rows.map((r: Record<string, string>) => ({
      eventId: r.event_id,
      destinationId: r.destination_id,
      endpointId: r.endpoint_id,
      eventType: r.event_type,
      endpointSlug: r.endpoint_slug,
      replayOfId: r.id,
    })),
  );
}

export const deadLetterQuery = paginationQuery.extend({
  destination_id: z.uuid().optional(),
  endpoint_id: z.uuid().optional(),
});

/** Deliveries `d` in the dead-letter queue: failed, and no replay has taken them over yet. */
const IN_DEAD_LETTER_QUEUE = `d.project_id = ? and d.dead_lettered_at is not null
        and not exists (select 1 from deliveries r where r.replay_of_id = d.id)`;

/** The dead-letter queue, newest first. */
export async function listDeadLetters(ctx: ProjectContext, query: unknown): Promise<Page<Delivery>> {
  const f = parseInput(deadLetterQuery, query ?? {}, 'query');
  const cursor = cursorFilter(f as PageRequest).id?.$lt ?? null;
  const { rows } = await knexOf(ctx).raw(
    `select d.id from deliveries d
      where ${IN_DEAD_LETTER_QUEUE}
        and (?::uuid is null or d.id < ?::uuid)
        and (?::uuid is null or d.destination_id = ?::uuid)
        and (?::uuid is null or d.endpoint_id = ?::uuid)
      order by d.id desc limit ?`,
    [ctx.project.id, cursor, cursor, f.destination_id ?? null, f.destination_id ?? null, f.endpoint_id ?? null, f.endpoint_id ?? null, f.limit + 1],
  );
  const deliveries = await ctx.em.find(Delivery, { id: { $in: rows.map((r: { id: string }) => r.id) } }, { orderBy: { id: 'desc' } });
  return toPage(deliveries, f, (d) => d);
}

/** How many deliveries the dead-letter queue holds, for the project or one of its endpoints. */
export async function countDeadLetters(ctx: ProjectContext, endpointId: string | null): Promise<number> {
  const { rows } = await knexOf(ctx).raw(
    `select count(*)::int as n from deliveries d where ${IN_DEAD_LETTER_QUEUE} and (?::uuid is null or d.endpoint_id = ?::uuid)`,
    [ctx.project.id, endpointId, endpointId],
  );
  return rows[0].n;
}
