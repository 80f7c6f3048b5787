import type { Knex } from '@mikro-orm/postgresql';
import type { Logger } from '../common/logger';
import { eventsQuarantined, eventsSearchDegraded } from '../metrics/metrics';

/** A UUIDv7 computed by PostgreSQL (16+ has no uuidv7()): 48-bit millisecond time, version and variant bits, random rest. */
const SQL_UUIDV7 = `encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
  substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid`;

/**
 * Fair between sources: each endpoint with waiting events (a skip scan of
 * events_undispatched_endpoint_idx) offers its oldest, interleaved (every source's
 * first, then every second…), so a 10,000-event backlog of one source does not hold
 * another's next event behind twenty passes; arrival order holds per source.
 * `lock` is `for update skip locked` when claiming, empty when only listing.
 */
const fairBatch = (lock: string) => `sources as (
       (select endpoint_id from events where dispatched_at is null order by endpoint_id limit 1)
       union all
       select (select e.endpoint_id from events e
                where e.dispatched_at is null and e.endpoint_id > sources.endpoint_id
                order by e.endpoint_id limit 1)
         from sources where sources.endpoint_id is not null
     ), offered as (
       select c.id, c.endpoint_id, c.project_id, c.event_type, c.status, row_number() over (partition by c.endpoint_id order by c.id) as turn
         from sources
        cross join lateral (
          select id, endpoint_id, project_id, event_type, status from events
           where endpoint_id = sources.endpoint_id and dispatched_at is null
           order by id limit :batchSize ${lock}) c
        where sources.endpoint_id is not null
     ), claimed as (
       select id, endpoint_id, project_id, event_type, status from offered order by turn, id limit :batchSize
     )`;

/** The events named, still undispatched (a per-event retry after its batch failed). */
const namedEvents = `claimed as (
       select id, endpoint_id, project_id, event_type, status from events
        where id = any(:eventIds::uuid[]) and dispatched_at is null for update skip locked
     )`;

/**
 * The search row: `doc`, the payload as jsonb (NULL when jsonb cannot hold it) for `contains`,
 * and `words`, the full-text vector of the payload text and header values. Degraded, for an
 * event whose full row the database refused (a number past numeric's range, words that overflow
 * a tsvector's 1 MiB): no `doc`, and the words of the first 256 KiB of that text only.
 */
const SEARCH_ROW = {
  full: 'relay_event_payload_jsonb(e.payload), relay_event_search_vector(e.payload, e.headers)',
  degraded: 'null, relay_search_words(left(relay_event_search_text(e.payload, e.headers), 262144))',
};

export interface FanOutOptions {
  /** These events only (each still undispatched), instead of the next fair batch. */
  eventIds?: readonly string[];
  search?: keyof typeof SEARCH_ROW;
}

/**
 * Claims up to `batchSize` undispatched events (the next fair batch, or `eventIds`), writes each
 * one's search row (`event_search`, computed here rather than on the ingress INSERT) and, for a
 * `received` event, creates one delivery per linked, active destination whose `event_types` is
 * empty or holds the event's type (blocked destinations leave no record), marking the events
 * dispatched: ONE statement, so one round trip and one atomic commit.
 */
export async function fanOutEvents(knex: Knex, batchSize: number, opts: FanOutOptions = {}): Promise<{ events: number; deliveries: number }> {
  const { rows } = await knex.raw(
    `with recursive ${opts.eventIds ? namedEvents : fairBatch('for update skip locked')}, marked as (
       update events set dispatched_at = now() from claimed where events.id = claimed.id returning events.id
     ), searchable as (
       insert into event_search (event_id, doc, words)
       select e.id, ${SEARCH_ROW[opts.search ?? 'full']}
         from claimed c join events e on e.id = c.id
       on conflict (event_id) do nothing
     ), targets as (
       select c.id as event_id, c.endpoint_id, c.project_id, t.id as destination_id
         from claimed c
         join endpoint_destinations l on l.endpoint_id = c.endpoint_id and c.status = 'received'
         join destinations t on t.id = l.destination_id and t.is_active
              and (t.event_types = '[]'::jsonb or t.event_types @> to_jsonb(c.event_type))
     ), created as (
       insert into deliveries (id, event_id, destination_id, endpoint_id, project_id)
       select ${SQL_UUIDV7}, event_id, destination_id, endpoint_id, project_id from targets order by event_id, destination_id
       returning id
     )
     select (select count(*) from marked)::int as events, (select count(*) from created)::int as deliveries`,
    { batchSize, eventIds: opts.eventIds ? `{${opts.eventIds.join(',')}}` : null },
  );
  return { events: rows[0].events, deliveries: rows[0].deliveries };
}

/**
 * A statement error caused by the data it read (SQLSTATE class 22, data exception: a number
 * past numeric's range, an escape jsonb refuses; class 54, program limit exceeded: stack depth,
 * a tsvector over 1 MiB). Anything else (a lost connection, a lock timeout, a missing table)
 * says nothing about one event: the pass fails and runs again later.
 */
export function isDataError(err: unknown): boolean {
  const code = (err as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('22') || code.startsWith('54'));
}

const reasonOf = (err: unknown): string => {
  const { code, message } = err as { code?: string; message?: string };
  // knex prefixes the whole statement to the message: keep PostgreSQL's own words.
  const text = String(message ?? err).split(' - ').pop()!;
  return `${text} (SQLSTATE ${code})`;
};

/**
 * Fans out the next fair batch, so that no event can stop the others (docs/delivery.md "One
 * event cannot stop the others"). When the batch's statement fails on its data, its events are
 * fanned out one by one; one that fails alone is fanned out again with a degraded search row;
 * one that fails even so is quarantined: marked dispatched with no delivery, and the reason kept.
 * Returns the number of events that left the outbox.
 */
export async function fanOutIsolated(knex: Knex, batchSize: number, log: Logger): Promise<number> {
  try {
    return (await fanOutEvents(knex, batchSize)).events;
  } catch (err) {
    if (!isDataError(err)) throw err;
    log.warn({ err: reasonOf(err) }, 'an outbox batch failed on its data; fanning its events out one by one');
  }
  // The same batch, listed without locks (the failed statement rolled back): a concurrent pass may take some meanwhile.
  const { rows } = await knex.raw(`with recursive ${fairBatch('')} select id from claimed`, { batchSize });
  let done = 0;
  for (const { id } of rows as Array<{ id: string }>) done += await fanOutOne(knex, id, log);
  return done;
}

async function fanOutOne(knex: Knex, eventId: string, log: Logger): Promise<number> {
  let failure: unknown;
  for (const search of ['full', 'degraded'] as const) {
    try {
      const { events } = await fanOutEvents(knex, 1, { eventIds: [eventId], search });
      if (search === 'degraded' && events > 0) {
        eventsSearchDegraded.inc();
        log.warn({ eventId, err: reasonOf(failure) }, 'event fanned out with a partial search row (its payload overflows search)');
      }
      return events;
    } catch (err) {
      if (!isDataError(err)) throw err;
      failure = err;
    }
  }
  const reason = reasonOf(failure);
  const { rowCount } = await knex.raw(
    `update events set dispatched_at = now(), quarantined_at = now(), quarantine_reason = ? where id = ? and dispatched_at is null`,
    [reason, eventId],
  );
  if (rowCount) {
    eventsQuarantined.inc({ sqlstate: String((failure as { code?: string }).code) });
    log.error({ eventId, reason }, 'event quarantined: the outbox cannot fan it out, even alone; it is kept, not delivered');
  }
  return rowCount ?? 0;
}
