import type { Knex } from '@mikro-orm/postgresql';
import { uuidv7, uuidv7LowerBound } from '../common/ids';
import type { SchemaAlerts } from '../common/types';
import type { SchemaChangeKind, ShapeExample } from './event-schema.entity';
import { type Drift, hasBreakingDrift, hasDrift, learn, observe, SHAPE_LIMITS, type ShapeNode, shapeHash } from './shape';
import { addGap, learnedIntervalSeconds } from './silence';
import { emitOperational, issueData, recordSourceIssue, resolveSourceIssue, type SourceRef } from './source-issues';

/**
 * The learner (docs/schemas.md): a pass reads the events received since the last one, in id order,
 * off the request path, and
 * - counts each into its source's activity (last event, gaps: src/schemas/silence.ts) and resolves
 *   the source's silence when it was silent (`relay.source.resumed`);
 * - learns it into the schema of its source and event type (src/schemas/shape.ts): every event until
 *   the type is warm (RELAY_SCHEMA_WARMUP_EVENTS), then at most `samplePerType` a pass; the others are
 *   only counted;
 * - records what a learned event changed, and alerts per the source's `schema_alerts`: a
 *   `schema_changed` issue and `relay.source.schema_changed`.
 * One pass at a time across processes (an advisory lock), in one transaction with the cursor, so an
 * event is counted once, and a crash counts nothing. Events younger than `lagMs` wait for the next
 * pass: ids are made before their commit, so a smaller id may still commit after a larger one.
 */

export interface LearnerOptions {
  warmupEvents: number;
  warmupSeconds: number;
  lagMs: number;
  /** Events read per pass. */
  batchSize: number;
  /** Events of one warm event type learned per pass; the rest are counted only. */
  samplePerType: number;
  /** Events learned per pass in all. */
  maxLearnedPerPass: number;
  /** Event types one source keeps a schema of; events of further types are counted only. */
  maxTypesPerSource: number;
  /** Drift history kept per schema (newest). */
  historyPerSchema: number;
}

export const LEARNER_DEFAULTS = { lagMs: 3000, batchSize: 2000, samplePerType: 20, maxLearnedPerPass: 500, maxTypesPerSource: 100, historyPerSchema: 50 } as const;

const PASS_LOCK = "hashtext('relay_schema_learner')";
const PAYLOAD_CHUNK = 100;

interface EventRow {
  id: string;
  endpoint_id: string;
  project_id: string;
  event_type: string;
  created_at: Date;
}

interface SourceRow extends SourceRef {
  project_id: string;
  schema_alerts: SchemaAlerts;
}

interface Activity {
  endpointId: string;
  projectId: string;
  eventCount: number;
  untracked: number;
  firstEventAt: Date | null;
  lastEventAt: Date | null;
  gaps: number[];
  silentSince: Date | null;
  resumedBy: EventRow | null;
}

interface Schema {
  id: string;
  endpointId: string;
  projectId: string;
  eventType: string;
  eventCount: number;
  learnedCount: number;
  firstSeenAt: Date;
  lastSeenAt: Date;
  shape: ShapeNode | null;
  pathCount: number;
  truncated: boolean;
  shapes: Record<string, ShapeExample>;
  /** Events to learn this pass, and of them those past the warm-up (the sample). */
  learning: number;
  sampled: number;
}

/** Rows as the ORM's connection returns them: bigints and timestamps as text. */
interface ActivityRow {
  endpoint_id: string;
  project_id: string;
  event_count: string;
  untracked_event_count: string;
  first_event_at: string | null;
  last_event_at: string | null;
  gaps: number[];
  silent_since: string | null;
}

interface SchemaRow {
  id: string;
  endpoint_id: string;
  project_id: string;
  event_type: string;
  event_count: string;
  learned_count: string;
  first_seen_at: string;
  last_seen_at: string;
  shape: ShapeNode;
  path_count: number;
  truncated: boolean;
  shapes: Record<string, ShapeExample>;
}

interface Change {
  schema: Schema;
  kind: SchemaChangeKind;
  drift: Drift;
  event: EventRow;
}

/** Timestamps come back as text (the ORM's connection leaves them unparsed). */
const dateOrNull = (value: string | Date | null) => (value === null ? null : new Date(value));
const key = (endpointId: string, eventType: string) => `${endpointId}\u0000${eventType}`;
const uuids = (ids: Iterable<string>) => `{${[...ids].join(',')}}`;

/** One learning pass. Returns how many events it read, and whether more are waiting. */
export async function learnSchemas(knex: Knex, opts: LearnerOptions): Promise<{ events: number; learned: number; changes: number; more: boolean }> {
  return knex.transaction(async (trx) => {
    const { rows: locked } = await trx.raw(`select pg_try_advisory_xact_lock(${PASS_LOCK}) as ok`);
    if (!locked[0].ok) return { events: 0, learned: 0, changes: 0, more: false };
    const { rows: cursor } = await trx.raw<{ rows: Array<{ last_event_id: string }> }>('select last_event_id from schema_learner_cursor for update');
    const { rows: events } = await trx.raw<{ rows: EventRow[] }>(
      'select id, endpoint_id, project_id, event_type, created_at from events where id > ? and id < ? order by id limit ?',
      [cursor[0].last_event_id, uuidv7LowerBound(Date.now() - opts.lagMs), opts.batchSize],
    );
    if (events.length === 0) return { events: 0, learned: 0, changes: 0, more: false };

    const sources = await sourcesOf(trx, events);
    const mine = events.filter((e) => sources.has(e.endpoint_id));
    const activities = await activitiesOf(trx, sources);
    const { schemas, typeCounts } = await schemasOf(trx, mine);
    const changes: Change[] = [];
    const toLearn: Array<{ event: EventRow; schema: Schema; newType: boolean }> = [];

    for (const event of mine) {
      const activity = activities.get(event.endpoint_id) ?? newActivity(activities, event);
      const at = new Date(event.created_at);
      const sourceWarm =
        activity.eventCount >= opts.warmupEvents && activity.firstEventAt !== null && at.getTime() - activity.firstEventAt.getTime() >= opts.warmupSeconds * 1000;
      if (activity.lastEventAt) activity.gaps = addGap(activity.gaps, at.getTime() - activity.lastEventAt.getTime());
      activity.eventCount += 1;
      activity.firstEventAt ??= at;
      if (!activity.lastEventAt || at > activity.lastEventAt) activity.lastEventAt = at;
      if (activity.silentSince && !activity.resumedBy) activity.resumedBy = event;

      let schema = schemas.get(key(event.endpoint_id, event.event_type));
      let newType = false;
      if (!schema) {
        if ((typeCounts.get(event.endpoint_id) ?? 0) >= opts.maxTypesPerSource) {
          activity.untracked += 1;
          continue;
        }
        typeCounts.set(event.endpoint_id, (typeCounts.get(event.endpoint_id) ?? 0) + 1);
        schema = newSchema(event);
        schemas.set(key(event.endpoint_id, event.event_type), schema);
        newType = sourceWarm;
      }
      schema.eventCount += 1;
      if (at > schema.lastSeenAt) schema.lastSeenAt = at;
      const warm = schema.learnedCount + schema.learning >= opts.warmupEvents;
      if (toLearn.length < opts.maxLearnedPerPass && (!warm || schema.sampled < opts.samplePerType)) {
        schema.learning += 1;
        if (warm) schema.sampled += 1;
        toLearn.push({ event, schema, newType });
      }
    }

    for (let k = 0; k < toLearn.length; k += PAYLOAD_CHUNK) {
      const chunk = toLearn.slice(k, k + PAYLOAD_CHUNK);
      const payloads = await payloadsOf(trx, chunk.map((c) => c.event.id));
      for (const { event, schema, newType } of chunk) {
        const text = payloads.get(event.id);
        if (text === undefined) continue;
        const change = learnEvent(schema, event, JSON.parse(text), opts);
        if (newType) changes.push({ schema, kind: 'new_event_type', drift: { added: [], removed: [], retyped: [] }, event });
        else if (change) changes.push(change);
      }
    }

    await saveSchemas(trx, schemas);
    await saveActivities(trx, activities);
    for (const change of changes) await recordChange(trx, change, sources.get(change.event.endpoint_id)!, opts);
    for (const activity of activities.values()) if (activity.resumedBy) await resume(trx, activity, sources.get(activity.endpointId)!);
    await trx.raw('update schema_learner_cursor set last_event_id = ?', [events.at(-1)!.id]);
    return { events: events.length, learned: toLearn.length, changes: changes.length, more: events.length === opts.batchSize };
  });
}

/** Learns one event into its schema; returns the change it showed, if any. */
function learnEvent(schema: Schema, event: EventRow, payload: unknown, opts: LearnerOptions): Change | null {
  const at = new Date(event.created_at).getTime();
  const obs = observe(payload);
  const detect = schema.learnedCount >= opts.warmupEvents;
  const { root, result } = learn(schema.shape, obs, at, { detect, paths: schema.pathCount });
  schema.shape = root;
  schema.pathCount = result.paths;
  schema.truncated ||= result.truncated;
  schema.learnedCount += 1;
  const hash = shapeHash(obs);
  const example = schema.shapes[hash];
  if (example) Object.assign(example, { n: example.n + 1, l: at });
  else if (Object.keys(schema.shapes).length < SHAPE_LIMITS.maxShapes) schema.shapes[hash] = { e: event.id, n: 1, f: at, l: at };
  return hasDrift(result.drift) ? { schema, kind: 'changed', drift: result.drift, event } : null;
}

async function sourcesOf(trx: Knex, events: EventRow[]): Promise<Map<string, SourceRow>> {
  const { rows } = await trx.raw<{ rows: SourceRow[] }>(
    'select id, project_id, name, slug, schema_alerts from webhook_endpoints where id = any(?::uuid[]) and not is_system',
    [uuids(new Set(events.map((e) => e.endpoint_id)))],
  );
  return new Map(rows.map((r) => [r.id, r]));
}

async function activitiesOf(trx: Knex, sources: Map<string, SourceRow>): Promise<Map<string, Activity>> {
  const { rows } = await trx.raw<{ rows: ActivityRow[] }>(
    `select endpoint_id, project_id, event_count, untracked_event_count, first_event_at, last_event_at, gaps, silent_since
       from source_activity where endpoint_id = any(?::uuid[]) for update`,
    [uuids(sources.keys())],
  );
  return new Map(
    rows.map((r) => [
      r.endpoint_id,
      {
        endpointId: r.endpoint_id,
        projectId: r.project_id,
        eventCount: Number(r.event_count),
        untracked: Number(r.untracked_event_count),
        firstEventAt: dateOrNull(r.first_event_at),
        lastEventAt: dateOrNull(r.last_event_at),
        gaps: r.gaps,
        silentSince: dateOrNull(r.silent_since),
        resumedBy: null,
      } satisfies Activity,
    ]),
  );
}

function newActivity(activities: Map<string, Activity>, event: EventRow): Activity {
  const activity: Activity = {
    endpointId: event.endpoint_id,
    projectId: event.project_id,
    eventCount: 0,
    untracked: 0,
    firstEventAt: null,
    lastEventAt: null,
    gaps: [],
    silentSince: null,
    resumedBy: null,
  };
  activities.set(event.endpoint_id, activity);
  return activity;
}

/** The schemas of the pass's sources and types (locked), and how many types each source has. */
async function schemasOf(trx: Knex, events: EventRow[]): Promise<{ schemas: Map<string, Schema>; typeCounts: Map<string, number> }> {
  const pairs = [...new Map(events.map((e) => [key(e.endpoint_id, e.event_type), { endpoint_id: e.endpoint_id, event_type: e.event_type }])).values()];
  const { rows } = await trx.raw<{ rows: SchemaRow[] }>(
    `select s.* from event_schemas s join jsonb_to_recordset(?::jsonb) as p(endpoint_id uuid, event_type text)
         on s.endpoint_id = p.endpoint_id and s.event_type = p.event_type
      order by s.id for update of s`,
    [JSON.stringify(pairs)],
  );
  const schemas = new Map<string, Schema>(
    rows.map((r) => [
      key(r.endpoint_id, r.event_type),
      {
        id: r.id,
        endpointId: r.endpoint_id,
        projectId: r.project_id,
        eventType: r.event_type,
        eventCount: Number(r.event_count),
        learnedCount: Number(r.learned_count),
        firstSeenAt: new Date(r.first_seen_at),
        lastSeenAt: new Date(r.last_seen_at),
        shape: r.shape,
        pathCount: r.path_count,
        truncated: r.truncated,
        shapes: r.shapes,
        learning: 0,
        sampled: 0,
      } satisfies Schema,
    ]),
  );
  const { rows: counts } = await trx.raw<{ rows: Array<{ endpoint_id: string; n: number }> }>(
    'select endpoint_id, count(*)::int as n from event_schemas where endpoint_id = any(?::uuid[]) group by endpoint_id',
    [uuids(new Set(pairs.map((p) => p.endpoint_id)))],
  );
  return { schemas, typeCounts: new Map(counts.map((c) => [c.endpoint_id, c.n])) };
}

function newSchema(event: EventRow): Schema {
  const at = new Date(event.created_at);
  return {
    id: uuidv7(),
    endpointId: event.endpoint_id,
    projectId: event.project_id,
    eventType: event.event_type,
    eventCount: 0,
    learnedCount: 0,
    firstSeenAt: at,
    lastSeenAt: at,
    shape: null,
    pathCount: 0,
    truncated: false,
    shapes: {},
    learning: 0,
    sampled: 0,
  };
}

async function payloadsOf(trx: Knex, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await trx.raw<{ rows: Array<{ id: string; payload: string }> }>('select id, payload::text as payload from events where id = any(?::uuid[])', [uuids(ids)]);
  return new Map(rows.map((r) => [r.id, r.payload]));
}

async function saveSchemas(trx: Knex, schemas: Map<string, Schema>): Promise<void> {
  const rows = [...schemas.values()]
    .filter((s) => s.shape !== null || s.eventCount > 0)
    .map((s) => ({
      id: s.id,
      project_id: s.projectId,
      endpoint_id: s.endpointId,
      event_type: s.eventType,
      event_count: s.eventCount,
      learned_count: s.learnedCount,
      first_seen_at: s.firstSeenAt,
      last_seen_at: s.lastSeenAt,
      // A type whose events were only counted so far (its first ones past the pass's learning budget) has an empty shape.
      shape: s.shape ?? { n: 0, t: {}, f: s.firstSeenAt.getTime(), l: s.firstSeenAt.getTime() },
      path_count: s.pathCount,
      truncated: s.truncated,
      shapes: s.shapes,
    }));
  if (rows.length === 0) return;
  await trx.raw(
    `insert into event_schemas (id, project_id, endpoint_id, event_type, event_count, learned_count, first_seen_at, last_seen_at, shape, path_count, truncated, shapes)
     select id, project_id, endpoint_id, event_type, event_count, learned_count, first_seen_at, last_seen_at, shape, path_count, truncated, shapes
       from jsonb_to_recordset(?::jsonb) as r(id uuid, project_id uuid, endpoint_id uuid, event_type text, event_count bigint, learned_count bigint,
            first_seen_at timestamptz, last_seen_at timestamptz, shape jsonb, path_count int, truncated boolean, shapes jsonb)
     on conflict (id) do update set event_count = excluded.event_count, learned_count = excluded.learned_count, last_seen_at = excluded.last_seen_at,
            shape = excluded.shape, path_count = excluded.path_count, truncated = excluded.truncated, shapes = excluded.shapes, updated_at = now()`,
    [JSON.stringify(rows)],
  );
}

async function saveActivities(trx: Knex, activities: Map<string, Activity>): Promise<void> {
  const rows = [...activities.values()].map((a) => ({
    endpoint_id: a.endpointId,
    project_id: a.projectId,
    event_count: a.eventCount,
    untracked_event_count: a.untracked,
    first_event_at: a.firstEventAt,
    last_event_at: a.lastEventAt,
    gaps: a.gaps,
    learned_interval_seconds: learnedIntervalSeconds(a),
    silent_since: a.resumedBy ? null : a.silentSince,
  }));
  if (rows.length === 0) return;
  await trx.raw(
    `insert into source_activity (endpoint_id, project_id, event_count, untracked_event_count, first_event_at, last_event_at, gaps, learned_interval_seconds, silent_since)
     select endpoint_id, project_id, event_count, untracked_event_count, first_event_at, last_event_at,
            array(select jsonb_array_elements_text(gaps)::int), learned_interval_seconds, silent_since
       from jsonb_to_recordset(?::jsonb) as r(endpoint_id uuid, project_id uuid, event_count bigint, untracked_event_count bigint,
            first_event_at timestamptz, last_event_at timestamptz, gaps jsonb, learned_interval_seconds int, silent_since timestamptz)
     on conflict (endpoint_id) do update set event_count = excluded.event_count, untracked_event_count = excluded.untracked_event_count,
            first_event_at = excluded.first_event_at, last_event_at = excluded.last_event_at, gaps = excluded.gaps,
            learned_interval_seconds = excluded.learned_interval_seconds, silent_since = excluded.silent_since`,
    [JSON.stringify(rows)],
  );
}

/** Whether the source's setting makes this change alert. */
export function alerts(setting: SchemaAlerts, kind: SchemaChangeKind, drift: Drift): boolean {
  if (setting === 'off') return false;
  if (kind === 'new_event_type' || hasBreakingDrift(drift)) return true;
  return setting === 'all' && drift.added.length > 0;
}

/** One line for the issue's `last_error`. */
export function changeSummary(kind: SchemaChangeKind, drift: Drift, eventType: string): string {
  if (kind === 'new_event_type') return `new event type ${eventType || '(none)'}`;
  const parts = [
    drift.removed.length > 0 && `removed ${drift.removed.join(', ')}`,
    drift.retyped.length > 0 && `retyped ${drift.retyped.map((r) => `${r.path} (${r.from.join('|')} → ${r.to.join('|')})`).join(', ')}`,
    drift.added.length > 0 && `added ${drift.added.join(', ')}`,
  ].filter(Boolean);
  const text = parts.join('; ');
  return text.length > 500 ? `${text.slice(0, 499)}…` : text;
}

async function recordChange(trx: Knex, change: Change, source: SourceRow, opts: LearnerOptions): Promise<void> {
  const { schema, kind, drift, event } = change;
  let alerted = alerts(source.schema_alerts, kind, drift);
  const issue = alerted
    ? await recordSourceIssue(trx, {
        projectId: schema.projectId,
        endpointId: schema.endpointId,
        cause: 'schema_changed',
        eventType: schema.eventType,
        eventId: event.id,
        summary: changeSummary(kind, drift, schema.eventType),
      })
    : null;
  // An ignored issue collects its changes without alerting.
  if (issue?.issue.state === 'ignored') alerted = false;
  const { rows } = await trx.raw<{ rows: Array<{ id: string; detected_at: Date }> }>(
    `insert into schema_changes (project_id, endpoint_id, schema_id, event_type, kind, added, removed, retyped, event_id, alerted, issue_id)
     values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?::jsonb, ?, ?, ?) returning id, detected_at`,
    [schema.projectId, schema.endpointId, schema.id, schema.eventType, kind, JSON.stringify(drift.added), JSON.stringify(drift.removed), JSON.stringify(drift.retyped), event.id, alerted, issue?.issue.id ?? null],
  );
  await trx.raw(
    `delete from schema_changes where schema_id = ? and id < (select id from schema_changes where schema_id = ? order by id desc offset ? limit 1)`,
    [schema.id, schema.id, opts.historyPerSchema - 1],
  );
  if (!alerted || !issue) return;
  await emitOperational(trx, schema.projectId, 'relay.source.schema_changed', `schema:${schema.endpointId}:${schema.eventType}`, {
    source: sourceRef(source),
    event_type: schema.eventType,
    change: { id: rows[0].id, kind, added: drift.added, removed: drift.removed, retyped: drift.retyped, detected_at: new Date(rows[0].detected_at).toISOString() },
    event: { id: event.id, received_at: new Date(event.created_at).toISOString() },
    schema: { id: schema.id, event_count: schema.eventCount, learned_count: schema.learnedCount },
    issue: issueData(issue.issue),
  });
}

async function resume(trx: Knex, activity: Activity, source: SourceRow): Promise<void> {
  const issue = await resolveSourceIssue(trx, activity.endpointId, 'source_silent');
  if (!issue) return;
  const event = activity.resumedBy!;
  await emitOperational(trx, activity.projectId, 'relay.source.resumed', `silence:${activity.endpointId}`, {
    source: sourceRef(source),
    silent_since: new Date(activity.silentSince!).toISOString(),
    resumed_at: new Date(event.created_at).toISOString(),
    event: { id: event.id, type: event.event_type },
    issue: issueData(issue),
  });
}

export const sourceRef = (s: SourceRef): SourceRef => ({ id: s.id, name: s.name, slug: s.slug });
