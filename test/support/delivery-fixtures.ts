import type { AppContainer } from '../../src/app/container';
import { uuidv7 } from '../../src/common/ids';
import type { DeliveryStatus } from '../../src/common/types';

/**
 * Delivery and attempt rows for read-side tests, written with SQL the way the
 * delivery workflow leaves them (`workflow_started_at` set, so no dispatcher
 * picks them up).
 */
export interface DeliveryFixture {
  deliveryId: string;
  attemptIds: string[];
}

export async function insertDelivery(
  container: AppContainer,
  fields: {
    eventId: string;
    destinationId: string;
    status?: DeliveryStatus;
    attempts?: Array<{ status: DeliveryStatus; statusCode?: number; error?: string }>;
    deadLettered?: boolean;
    replayOfId?: string;
  },
): Promise<DeliveryFixture> {
  const knex = container.orm.em.getConnection().getKnex();
  const deliveryId = uuidv7();
  const attempts = fields.attempts ?? [];
  await knex.raw(
    `insert into deliveries (id, event_id, destination_id, endpoint_id, project_id, status, attempt_count, dead_lettered_at, replay_of_id, workflow_started_at)
     select ?, e.id, ?, e.endpoint_id, e.project_id, ?, ?, ?, ?, now() from events e where e.id = ?`,
    [deliveryId, fields.destinationId, fields.status ?? 'queued', attempts.length, fields.deadLettered ? new Date() : null, fields.replayOfId ?? null, fields.eventId],
  );
  const attemptIds: string[] = [];
  for (const [i, a] of attempts.entries()) {
    const id = uuidv7();
    attemptIds.push(id);
    await knex.raw(
      `insert into delivery_attempts (id, delivery_id, event_id, destination_id, attempt_number, status, status_code, response_body, error, latency_ms, payload_sent)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?, 12, ?::json)`,
      [id, deliveryId, fields.eventId, fields.destinationId, i + 1, a.status, a.statusCode ?? null, a.statusCode ? 'ok' : null, a.error ?? null, '{"sent":true}'],
    );
  }
  return { deliveryId, attemptIds };
}

/** Counts SQL statements the container's ORM sends while `fn` runs. */
export async function countQueries(container: AppContainer, fn: () => Promise<unknown>): Promise<number> {
  const knex = container.orm.em.getConnection().getKnex();
  let count = 0;
  const onQuery = () => count++;
  knex.on('query', onQuery);
  try {
    await fn();
  } finally {
    knex.off('query', onQuery);
  }
  return count;
}
