import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { DELIVERY_STATUS_OUTCOMES, OUTCOMES, type Outcome } from '../../packages/cli/src/shared/outcomes';
import type { DeliveryStatus } from '../common/types';

/**
 * An event's delivery outcome, summarised over its current deliveries (per
 * destination, the newest one: a replay takes over from what it replays), worst
 * first. The words, their order and what each delivery status reads as are
 * packages/cli/src/shared/outcomes.ts (the dashboard and the CLI use the same file);
 * the SQL below is generated from them. One SQL expression computes the outcome,
 * for the list's column and for its filter, so what a row shows and what the
 * filter selects cannot disagree (docs/dashboard.md).
 */
export const EVENT_OUTCOMES = OUTCOMES;
export type EventOutcome = Outcome;

// Every stored delivery status has its word (a status added to the entity without one fails to compile here).
DELIVERY_STATUS_OUTCOMES satisfies Record<DeliveryStatus, Outcome>;

const quote = (word: string) => `'${word}'`;
/** The words worst first, as a SQL array: `array_position` in it is the rank. */
const RANK = `array[${OUTCOMES.map(quote).join(', ')}]::text[]`;
/** `deliveryOutcome()` of the delivery row aliased `d`. */
const DELIVERY_OUTCOME_SQL = `case when d.status = 'failed' and d.dead_lettered_at is not null then 'dead_lettered' ${Object.entries(DELIVERY_STATUS_OUTCOMES)
  .map(([status, outcome]) => `when d.status = ${quote(status)} then ${quote(outcome)}`)
  .join(' ')} end`;

/** Response-code classes of the last attempt of a current delivery; `none`: attempted, no HTTP response (network error, timeout). */
export const RESPONSE_CLASSES = ['2xx', '3xx', '4xx', '5xx', 'none'] as const;
export type ResponseClass = (typeof RESPONSE_CLASSES)[number];

/** `d` is one of the current deliveries of its event: no newer delivery of the same event and destination. */
const CURRENT = `not exists (select 1 from deliveries r where r.event_id = d.event_id and r.destination_id = d.destination_id and r.id > d.id)`;

/** The outcome of the event row aliased `e` (`eventOutcome()`; a scalar subquery: an aggregate without GROUP BY always yields one row). */
export const OUTCOME_SQL = `(select case
    when e.status = 'filtered' then 'filtered'
    when count(*) = 0 then case when e.quarantined_at is not null then 'quarantined' when e.dispatched_at is null then 'pending' else 'no_destination' end
    else (${RANK})[min(array_position(${RANK}, ${DELIVERY_OUTCOME_SQL}))] end
  from deliveries d where d.event_id = e.id and ${CURRENT})`;

/**
 * A cheap pre-filter for outcomes that need a delivery in a given state (one
 * index probe per event), evaluated before the outcome: a CASE guarantees the
 * order, so the outcome (two index scans per event) is computed only for events
 * that pass it. The events are then walked newest first and the walk stops at the
 * page's end. Before, the planner computed the outcome of every candidate before
 * the pre-filter or the sort: 254 ms for `failed` and 1.9 s for `no_destination`
 * (no match) at 100,000 events (bench:dashboard).
 */
const hasDelivery = (condition: string) => `exists (select 1 from deliveries d where d.event_id = e.id and ${condition})`;
const PREFILTER: Partial<Record<EventOutcome, string>> = {
  dead_lettered: hasDelivery('d.dead_lettered_at is not null'),
  failed: hasDelivery(`d.status = 'failed'`),
  retrying: hasDelivery(`d.status = 'retrying'`),
  skipped: hasDelivery(`d.status = 'skipped'`),
  canceled: hasDelivery(`d.status = 'canceled'`),
  filtered: `e.status = 'filtered'`,
  quarantined: `e.quarantined_at is not null and e.status <> 'filtered'`,
  no_destination: `e.status <> 'filtered' and e.dispatched_at is not null and e.quarantined_at is null and not ${hasDelivery('true')}`,
};

/** WHERE fragment (with its bindings) selecting events of the given outcome; the events table is aliased `e`. */
export function outcomeCondition(outcome: EventOutcome): [string, unknown[]] {
  const pre = PREFILTER[outcome];
  return [pre ? `(case when ${pre} then ${OUTCOME_SQL} end) = ?` : `${OUTCOME_SQL} = ?`, [outcome]];
}

const CLASS_RANGE: Record<ResponseClass, [number, number]> = { '2xx': [200, 299], '3xx': [300, 399], '4xx': [400, 499], '5xx': [500, 599], none: [0, 0] };

/** WHERE fragment: a current delivery of `e` whose last attempt's response code is in the class (0 stands for no response). */
export function responseClassCondition(cls: ResponseClass): [string, unknown[]] {
  const [low, high] = CLASS_RANGE[cls];
  // Pre-filter first (any attempt of the event in the class), as for outcomes above. The exact check after it is an index
  // probe per event that passed: `offset 0` keeps the planner from hashing it over every delivery of the database instead
  // (1.4 s for `5xx` at 100,000 events).
  return [
    `(case when exists (select 1 from delivery_attempts pa where pa.event_id = e.id and coalesce(pa.status_code, 0) between ? and ?)
       then exists (select 1 from deliveries d where d.event_id = e.id and ${CURRENT}
         and (select coalesce(a.status_code, 0) from delivery_attempts a where a.delivery_id = d.id order by a.attempt_number desc limit 1) between ? and ? offset 0)
       else false end)`,
    [low, high, low, high],
  ];
}

const destinationRef = z.object({ id: z.uuid(), name: z.string() });

export const eventOutcomeFields = {
  outcome: z.enum(EVENT_OUTCOMES).describe('The deliveries\' outcome summarised, worst first (docs/concepts.md "Statuses and outcomes")'),
  outcome_destination: destinationRef
    .nullable()
    .describe('The destination whose delivery gives the outcome: the worst current delivery, the newest among equals (null: no delivery, or its destination was deleted)'),
  last_status_code: z.number().int().nullable().describe('Response code of the last attempt of that delivery (null: none yet, or no HTTP response)'),
  destination_count: z.number().int().describe('How many destinations the event has a current delivery to'),
};
export interface EventOutcomeView {
  outcome: EventOutcome;
  outcome_destination: { id: string; name: string } | null;
  last_status_code: number | null;
  destination_count: number;
}

/**
 * Outcome of many events of one project, in key order, with the delivery it comes
 * from (its destination and its last response code): one query, for pages and DataLoaders.
 */
export async function outcomesByEventIds(em: EntityManager, projectId: string, ids: readonly string[]): Promise<EventOutcomeView[]> {
  if (ids.length === 0) return [];
  const { rows } = await em.getConnection().getKnex().raw(
    `select e.id, ${OUTCOME_SQL} as outcome, w.destination_id, w.destination_name, w.status_code, coalesce(w.count, 0)::int as count
       from events e
       left join lateral (
         select d.destination_id, dst.name as destination_name, count(*) over () as count,
                (select a.status_code from delivery_attempts a where a.delivery_id = d.id order by a.attempt_number desc limit 1) as status_code
           from deliveries d left join destinations dst on dst.id = d.destination_id
          where d.event_id = e.id and ${CURRENT}
          order by array_position(${RANK}, ${DELIVERY_OUTCOME_SQL}), d.id desc
          limit 1) w on true
      where e.project_id = ? and e.id = any(?::uuid[])`,
    [projectId, `{${ids.join(',')}}`],
  );
  type Row = { id: string; outcome: EventOutcome; destination_id: string | null; destination_name: string | null; status_code: number | null; count: number };
  const byId = new Map<string, EventOutcomeView>(
    rows.map((r: Row) => [
      r.id,
      {
        outcome: r.outcome,
        outcome_destination: r.destination_id && r.destination_name !== null ? { id: r.destination_id, name: r.destination_name } : null,
        last_status_code: r.status_code,
        destination_count: r.count,
      },
    ]),
  );
  return ids.map((id) => byId.get(id) ?? { outcome: 'pending', outcome_destination: null, last_status_code: null, destination_count: 0 });
}
