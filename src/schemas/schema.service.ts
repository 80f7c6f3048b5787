import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { findInProject } from '../common/project-scope';
import type { ProjectContext } from '../common/request-context';
import { parseInput } from '../common/validation';
import type { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { findEndpoint } from '../endpoints/endpoint.service';
import { EventSchema, SchemaChange, SourceActivity } from './event-schema.entity';
import { acceptChanges } from './schema-accept';
import {
  type EventSchemaDetailView,
  type SourceSchemasView,
  toActivityView,
  toEventSchemaView,
  toPathViews,
  toSchemaChangeView,
} from './schema.view';

/**
 * Inferred schemas (docs/schemas.md): a source's event types with their JSON Schema, one schema's
 * paths and drift history, and accepting its changes. The learner (schema-learner.ts) writes them;
 * users read them and accept changes. REST and GraphQL both call these.
 */

export const sourceSchemasQuery = z.object({
  event_type: z.string().max(1000).optional().describe('Only this event type (empty: events without a type)'),
});

/** Changes kept per schema and shown with it (the learner keeps as many). */
const HISTORY = 50;

export async function listSourceSchemas(ctx: ProjectContext, endpointId: string, query: unknown): Promise<SourceSchemasView> {
  const q = parseInput(sourceSchemasQuery, query ?? {}, 'query');
  const endpoint = await findEndpoint(ctx, endpointId);
  const schemas = await ctx.em.find(EventSchema, { endpoint: endpoint.id, ...(q.event_type !== undefined ? { eventType: q.event_type } : {}) }, { orderBy: { eventType: 'asc' } });
  const stats = await changeStats(ctx.em, schemas.map((s) => s.id));
  const activity = await ctx.em.findOne(SourceActivity, { endpointId: endpoint.id });
  return {
    source: {
      id: endpoint.id,
      name: endpoint.name,
      slug: endpoint.slug,
      schema_alerts: endpoint.schemaAlerts,
      silence_alerts: endpoint.silenceAlerts,
      expected_interval_seconds: endpoint.expectedIntervalSeconds ?? null,
    },
    activity: toActivityView(activity, expectedWithin(endpoint, activity)),
    warmup_events: ctx.container.config.RELAY_SCHEMA_WARMUP_EVENTS,
    data: schemas.map((s) => toEventSchemaView(s, { ...stats(s.id), warmupEvents: ctx.container.config.RELAY_SCHEMA_WARMUP_EVENTS, sourceName: endpoint.name })),
  };
}

/** One schema with its paths and its drift history (newest first). */
export async function getEventSchema(ctx: ProjectContext, id: string): Promise<EventSchemaDetailView> {
  const schema = await findInProject(ctx, EventSchema, 'Event schema', id);
  await ctx.em.populate(schema, ['endpoint']);
  const [stats, changes] = await Promise.all([changeStats(ctx.em, [schema.id]), ctx.em.find(SchemaChange, { schema: schema.id }, { orderBy: { id: 'desc' }, limit: HISTORY })]);
  return {
    ...toEventSchemaView(schema, { ...stats(schema.id), warmupEvents: ctx.container.config.RELAY_SCHEMA_WARMUP_EVENTS, sourceName: schema.endpoint.name }),
    paths: toPathViews(schema),
    changes: changes.map(toSchemaChangeView),
  };
}

/**
 * Makes the schema's changes not accepted yet its expected shape, and resolves its open or
 * acknowledged `schema_changed` issue (an ignored one stays ignored).
 */
export async function acceptEventSchema(ctx: ProjectContext, id: string): Promise<EventSchemaDetailView> {
  const schema = await findInProject(ctx, EventSchema, 'Event schema', id);
  await ctx.em.transactional(async (em) => {
    const conn = em.getConnection();
    // The schema's row first, then the issue (the learner's order: src/schemas/schema-accept.ts).
    await conn.execute('select id from event_schemas where id = ? for update', [schema.id]);
    await acceptChanges(em, schema.id);
    const [issue] = await conn.execute<Array<{ id: string }>>(
      `select id from issues where endpoint_id = ? and cause = 'schema_changed' and event_type = ? and state in ('open', 'acknowledged')`,
      [schema.endpoint.id, schema.eventType],
    );
    if (issue) await conn.execute('select relay_set_issue_state(?, ?)', [issue.id, 'resolved']);
  });
  await ctx.em.refresh(schema);
  return getEventSchema(ctx, id);
}

/** The expectation of traffic in force: explicit, learned, or none. */
function expectedWithin(endpoint: WebhookEndpoint, activity: SourceActivity | null): number | null {
  if (endpoint.silenceAlerts === 'expected_interval') return endpoint.expectedIntervalSeconds ?? null;
  if (endpoint.silenceAlerts === 'learned') return activity?.learnedIntervalSeconds ?? null;
  return null;
}

/** Per schema: changes that alerted and wait for acceptance, and when the latest was detected. One query. */
async function changeStats(em: EntityManager, schemaIds: string[]): Promise<(id: string) => { pending: number; lastChangeAt: Date | null }> {
  const rows =
    schemaIds.length === 0
      ? []
      : await em.getConnection().execute<Array<{ schema_id: string; pending: number; last_at: string | null }>>(
          `select schema_id, count(*) filter (where alerted and accepted_at is null)::int as pending, max(detected_at) as last_at
             from schema_changes where schema_id = any(?::uuid[]) group by schema_id`,
          [`{${schemaIds.join(',')}}`],
        );
  const byId = new Map(rows.map((r) => [r.schema_id, { pending: r.pending, lastChangeAt: r.last_at ? new Date(r.last_at) : null }]));
  return (id) => byId.get(id) ?? { pending: 0, lastChangeAt: null };
}
