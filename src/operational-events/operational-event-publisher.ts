import type { Knex } from '@mikro-orm/postgresql';
import type { AppContainer } from '../app/container';
import { uuidv7 } from '../common/ids';
import { NOTIFY } from '../common/notify-channels';
import type { Condition, Logic } from '../common/types';
import { passesFilters } from '../ingress/filters';
import { type OccurrenceGroup, type OperationalEventType, operationalEnvelope } from './operational-events';

/**
 * Turns operational occurrences (written by the statements that make them happen, see
 * migrations/…_operational_events.ts) into events on each project's system source
 * (docs/operational-events.md "Coalescing"): per coalescing key (a destination's dead letters, its
 * circuit, its pause) at most one event per window. The first occurrence after a quiet window is
 * published at once; the ones that follow wait for the window's end and become one event that
 * describes the latest and counts them all. The system source's filter groups apply as at ingress
 * (status `filtered`); an inactive system source (or an archived project) drops its occurrences.
 * One pass runs at a time across processes (an advisory lock), in one transaction: an event is
 * published exactly once, and a crash publishes nothing (the occurrences stay).
 */

export type PublisherDeps = Pick<AppContainer, 'orm' | 'config' | 'log' | 'notifications'>;

const PASS_LOCK = "hashtext('relay_operational_publisher')";
const GROUPS_PER_PASS = 200;

interface GroupRow {
  project_id: string;
  coalesce_key: string;
  n: number;
  first_at: Date;
  last_id: string;
  type: OperationalEventType;
  data: Record<string, unknown>;
  last_at: Date;
  project_name: string;
  organization_id: string;
  project_archived: boolean;
  endpoint_id: string | null;
  endpoint_active: boolean | null;
}

interface FilterRow {
  endpoint_id: string;
  logic: Logic;
  is_enabled: boolean;
  conditions: Condition[];
}

/** One publishing pass. Returns how many events it stored and when held occurrences are next due (epoch ms), if any. */
export async function publishOperationalEvents(
  knex: Knex,
  opts: { windowSeconds: number; publicBaseUrl: string },
): Promise<{ published: number; nextDueAt: number | null }> {
  return knex.transaction(async (trx) => {
    const { rows: locked } = await trx.raw(`select pg_try_advisory_xact_lock(${PASS_LOCK}) as ok`);
    if (!locked[0].ok) return { published: 0, nextDueAt: null };
    const { rows: groups } = await trx.raw<{ rows: GroupRow[] }>(
      `with due as (
         select o.project_id, o.coalesce_key, count(*)::int as n, min(o.occurred_at) as first_at, max(o.id::text)::uuid as last_id
           from operational_occurrences o
           left join operational_windows w on w.project_id = o.project_id and w.coalesce_key = o.coalesce_key
          where w.emitted_at is null or w.emitted_at <= now() - make_interval(secs => ?)
          group by o.project_id, o.coalesce_key
          order by last_id limit ?
       )
       select due.*, o.type, o.data, o.occurred_at as last_at, p.name as project_name, p.organization_id,
              p.archived_at is not null as project_archived, ep.id as endpoint_id, ep.is_active as endpoint_active
         from due
         join operational_occurrences o on o.id = due.last_id
         join projects p on p.id = due.project_id
         left join webhook_endpoints ep on ep.project_id = due.project_id and ep.is_system
        order by due.last_id`,
      [opts.windowSeconds, GROUPS_PER_PASS],
    );
    const filters = await filterGroupsOf(trx, groups);
    let published = 0;
    let received = false;
    for (const g of groups) {
      if (g.endpoint_id && g.endpoint_active && !g.project_archived) {
        const envelope = operationalEnvelope(toGroup(g), opts.publicBaseUrl);
        const status = passesFilters(filters.get(g.endpoint_id) ?? [], { headers: {}, body: envelope }) ? 'received' : 'filtered';
        // The idempotency key names the latest occurrence: nothing can store the same event twice.
        await trx.raw(
          `insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, idempotency_key, status)
           values (?, ?, ?, ?, ?, ?::json, '{}'::json, ?, ?) on conflict (endpoint_id, idempotency_key) do nothing`,
          [uuidv7(), g.endpoint_id, g.project_id, g.organization_id, g.type, JSON.stringify(envelope), `relay:${g.last_id}`, status],
        );
        await trx.raw(
          `insert into operational_windows (project_id, coalesce_key, emitted_at) values (?, ?, now())
           on conflict (project_id, coalesce_key) do update set emitted_at = excluded.emitted_at`,
          [g.project_id, g.coalesce_key],
        );
        published += 1;
        received ||= status === 'received';
      }
      await trx.raw('delete from operational_occurrences where project_id = ? and coalesce_key = ? and id <= ?', [g.project_id, g.coalesce_key, g.last_id]);
    }
    // The outbox dispatcher fans the new events out like any other (at this transaction's commit).
    if (received) await trx.raw('select pg_notify(?, ?)', [NOTIFY.eventsCommitted, '']);
    // Expired windows mean nothing any more; pruning keeps the table as small as the recent activity.
    await trx.raw('delete from operational_windows where emitted_at <= now() - make_interval(secs => ?)', [opts.windowSeconds]);
    const { rows: next } = await trx.raw(
      `select extract(epoch from min(w.emitted_at) + make_interval(secs => ?)) * 1000 as due_at
         from operational_windows w
        where exists (select 1 from operational_occurrences o where o.project_id = w.project_id and o.coalesce_key = w.coalesce_key)`,
      [opts.windowSeconds],
    );
    return { published, nextDueAt: next[0].due_at === null ? null : Number(next[0].due_at) };
  });
}

function toGroup(g: GroupRow): OccurrenceGroup {
  return {
    projectId: g.project_id,
    projectName: g.project_name,
    type: g.type,
    data: g.data,
    count: g.n,
    firstOccurredAt: new Date(g.first_at),
    lastOccurredAt: new Date(g.last_at),
  };
}

/** The system sources' filter groups (docs/ingress.md "Filters"), by endpoint. */
async function filterGroupsOf(trx: Knex, groups: GroupRow[]): Promise<Map<string, Array<{ logic: Logic; isEnabled: boolean; conditions: Condition[] }>>> {
  const endpointIds = [...new Set(groups.map((g) => g.endpoint_id).filter((id): id is string => id !== null))];
  const byEndpoint = new Map<string, Array<{ logic: Logic; isEnabled: boolean; conditions: Condition[] }>>();
  if (endpointIds.length === 0) return byEndpoint;
  const { rows } = await trx.raw<{ rows: FilterRow[] }>(
    `select g.endpoint_id, g.logic, g.is_enabled,
            coalesce(json_agg(json_build_object('field', c.field, 'operator', c.operator, 'value', c.value) order by c.position)
                     filter (where c.id is not null), '[]') as conditions
       from filter_groups g left join filter_conditions c on c.filter_id = g.id
      where g.endpoint_id = any(?::uuid[])
      group by g.id order by g.created_at, g.id`,
    [`{${endpointIds.join(',')}}`],
  );
  for (const r of rows) {
    const list = byEndpoint.get(r.endpoint_id) ?? [];
    list.push({ logic: r.logic, isEnabled: r.is_enabled, conditions: r.conditions });
    byEndpoint.set(r.endpoint_id, list);
  }
  return byEndpoint;
}

/**
 * Runs publishing passes in a worker process: on every occurrence's NOTIFY, when held occurrences
 * fall due, and on a slow poll (a missed notification).
 */
export class OperationalEventPublisher {
  private stopListening: (() => void) | null = null;
  private pollTimer: NodeJS.Timeout | null = null;
  private dueTimer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private stopped = false;

  constructor(
    private readonly deps: PublisherDeps,
    private readonly opts: { pollIntervalMs?: number } = {},
  ) {}

  async start(): Promise<void> {
    this.stopListening = await this.deps.notifications.listen({
      channel: NOTIFY.operationalOccurrences,
      onNotify: () => this.kick(),
      onConnect: () => this.kick(),
    });
    this.pollTimer = setInterval(() => this.kick(), this.opts.pollIntervalMs ?? 5000);
    this.kick();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.stopListening?.();
    await this.running;
  }

  kick(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = null;
    });
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        const { nextDueAt } = await publishOperationalEvents(this.deps.orm.em.getConnection().getKnex(), {
          windowSeconds: this.deps.config.RELAY_OPERATIONAL_EVENT_WINDOW_SECONDS,
          publicBaseUrl: this.deps.config.publicBaseUrl,
        });
        if (nextDueAt !== null) this.wakeAt(nextDueAt);
      } catch (err) {
        this.deps.log.error({ err }, 'publishing operational events failed; retrying on the next poll');
        return;
      }
    } while (this.again && !this.stopped);
  }

  private wakeAt(dueAt: number): void {
    if (this.dueTimer) clearTimeout(this.dueTimer);
    this.dueTimer = setTimeout(() => {
      this.dueTimer = null;
      this.kick();
    }, Math.max(50, dueAt - Date.now() + 50));
  }
}
