import { z } from 'zod';
import { SCHEMA_ALERTS, SILENCE_ALERTS } from '../common/types';
import type { EventSchema, SchemaChange, SourceActivity } from './event-schema.entity';
import { type JsonSchema, shapeToJsonSchema } from './json-schema';
import { flattenShape, JSON_TYPES } from './shape';

/** The wire forms of inferred schemas, their changes and a source's activity (docs/schemas.md). */

const typeCounts = z.partialRecord(z.enum(JSON_TYPES), z.number().int()).describe('How many times the path held each JSON type');

export const schemaExampleView = z.object({
  event_id: z.uuid().describe('An event of this shape (it expires with the project’s retention)'),
  count: z.number().int().describe('Events of this shape learned'),
  first_seen_at: z.iso.datetime(),
  last_seen_at: z.iso.datetime(),
});

export const schemaPathView = z.object({
  path: z.string().describe('$ is the payload; a.b a property; a[] the elements of an array (counted per element)'),
  types: typeCounts,
  count: z.number().int(),
  frequency: z.number().describe('Of the times its parent was an object (or an array element): 1 means always'),
  required: z.boolean(),
  first_seen_at: z.iso.datetime(),
  last_seen_at: z.iso.datetime(),
});

export const schemaChangeView = z.object({
  id: z.uuid(),
  kind: z.enum(['changed', 'new_event_type']),
  added: z.array(z.string()),
  removed: z.array(z.string()).describe('Paths present in every event before, missing from this one'),
  retyped: z.array(z.object({ path: z.string(), from: z.array(z.enum(JSON_TYPES)), to: z.array(z.enum(JSON_TYPES)) })),
  event_id: z.uuid().describe('The event that showed the change'),
  detected_at: z.iso.datetime(),
  alerted: z.boolean().describe('It opened or grew an issue and emitted relay.source.schema_changed'),
  issue_id: z.uuid().nullable(),
  accepted_at: z.iso.datetime().nullable().describe('When its new shape was made the expected one'),
});
export type SchemaChangeView = z.infer<typeof schemaChangeView>;

export const eventSchemaView = z.object({
  id: z.uuid(),
  endpoint_id: z.uuid(),
  event_type: z.string(),
  event_count: z.number().int().describe('Events of this type received since learning began'),
  learned_count: z.number().int().describe('Of them, learned into the schema (every event until warm, then a sample)'),
  warm: z.boolean().describe('Past the warm-up: its changes alert'),
  first_seen_at: z.iso.datetime(),
  last_seen_at: z.iso.datetime(),
  path_count: z.number().int(),
  truncated: z.boolean().describe('The schema is full: paths first seen past the limit are not learned'),
  pending_changes: z.number().int().describe('Changes that alerted and are not accepted yet'),
  last_change_at: z.iso.datetime().nullable(),
  examples: z.array(schemaExampleView).describe('One event per distinct shape, the most frequent first'),
  json_schema: z.record(z.string(), z.unknown()).describe('The inferred JSON Schema (draft 2020-12)'),
});
export type EventSchemaView = z.infer<typeof eventSchemaView> & { json_schema: JsonSchema };

export const eventSchemaDetailView = eventSchemaView.extend({
  paths: z.array(schemaPathView),
  changes: z.array(schemaChangeView).describe('The drift history, newest first'),
});
export type EventSchemaDetailView = EventSchemaView & { paths: z.infer<typeof schemaPathView>[]; changes: SchemaChangeView[] };

export const sourceSchemasView = z.object({
  source: z.object({
    id: z.uuid(),
    name: z.string(),
    slug: z.string(),
    schema_alerts: z.enum(SCHEMA_ALERTS),
    silence_alerts: z.enum(SILENCE_ALERTS),
    expected_interval_seconds: z.number().int().nullable(),
  }),
  activity: z.object({
    event_count: z.number().int().describe('Events received since learning began'),
    untracked_event_count: z.number().int().describe('Events of types past the per-source limit: counted, not learned'),
    first_event_at: z.iso.datetime().nullable(),
    last_event_at: z.iso.datetime().nullable(),
    learned_interval_seconds: z.number().int().nullable().describe('The expectation learned from the gaps between events (null until enough history)'),
    expected_within_seconds: z.number().int().nullable().describe('The expectation in force (explicit or learned); null: no silence alert'),
    silent_since: z.iso.datetime().nullable(),
  }),
  warmup_events: z.number().int().describe('Events of a type learned before its changes alert'),
  data: z.array(eventSchemaView),
});
export type SourceSchemasView = z.infer<typeof sourceSchemasView> & { data: EventSchemaView[] };

const iso = (d: Date | string) => new Date(d).toISOString();
const isoOrNull = (d: Date | string | null | undefined) => (d ? iso(d) : null);

export function toEventSchemaView(s: EventSchema, stats: { warmupEvents: number; pending: number; lastChangeAt: Date | null; sourceName: string }): EventSchemaView {
  const examples = Object.values(s.shapes)
    .sort((a, b) => b.n - a.n)
    .map((e) => ({ event_id: e.e, count: e.n, first_seen_at: iso(new Date(e.f)), last_seen_at: iso(new Date(e.l)) }));
  return {
    id: s.id,
    endpoint_id: s.endpoint.id,
    event_type: s.eventType,
    event_count: s.eventCount,
    learned_count: s.learnedCount,
    warm: s.learnedCount >= stats.warmupEvents,
    first_seen_at: iso(s.firstSeenAt),
    last_seen_at: iso(s.lastSeenAt),
    path_count: s.pathCount,
    truncated: s.truncated,
    pending_changes: stats.pending,
    last_change_at: isoOrNull(stats.lastChangeAt),
    examples,
    json_schema: shapeToJsonSchema(s.shape, {
      title: s.eventType,
      description: `Inferred by the relay from ${s.learnedCount} of ${s.eventCount} events of type ${JSON.stringify(s.eventType)} received by ${stats.sourceName} (${iso(s.firstSeenAt)} to ${iso(s.lastSeenAt)}).`,
    }),
  };
}

export function toSchemaChangeView(c: SchemaChange): SchemaChangeView {
  return {
    id: c.id,
    kind: c.kind,
    added: c.added,
    removed: c.removed,
    retyped: c.retyped,
    event_id: c.eventId,
    detected_at: iso(c.detectedAt),
    alerted: c.alerted,
    issue_id: c.issueId ?? null,
    accepted_at: isoOrNull(c.acceptedAt),
  };
}

export function toPathViews(s: EventSchema): EventSchemaDetailView['paths'] {
  return s.learnedCount > 0 ? flattenShape(s.shape) : [];
}

export function toActivityView(a: SourceActivity | null, expectedWithin: number | null): SourceSchemasView['activity'] {
  return {
    event_count: a?.eventCount ?? 0,
    untracked_event_count: a?.untrackedEventCount ?? 0,
    first_event_at: isoOrNull(a?.firstEventAt),
    last_event_at: isoOrNull(a?.lastEventAt),
    learned_interval_seconds: a?.learnedIntervalSeconds ?? null,
    expected_within_seconds: expectedWithin,
    silent_since: isoOrNull(a?.silentSince),
  };
}
