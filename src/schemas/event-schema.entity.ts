import { BigIntType, Entity, Enum, Index, ManyToOne, PrimaryKey, Property } from '@mikro-orm/core';
import { uuidv7 } from '../common/ids';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { Project } from '../projects/project.entity';
import type { Retyped, ShapeNode } from './shape';

/** One example event of a distinct shape (short keys: stored as jsonb, up to SHAPE_LIMITS.maxShapes a schema). */
export interface ShapeExample {
  /** The example event's id. */
  e: string;
  /** Events of this shape learned. */
  n: number;
  /** First and last seen (ms since the epoch). */
  f: number;
  l: number;
}

/**
 * The inferred schema of one source's events of one type (docs/schemas.md). Written by the learner
 * (src/schemas/schema-learner.ts) with plain SQL, and by accepting a change; read here.
 */
@Entity({ tableName: 'event_schemas' })
@Index({ name: 'event_schemas_endpoint_type_idx', properties: ['endpoint', 'eventType'] })
export class EventSchema {
  @PrimaryKey({ type: 'uuid' })
  id: string = uuidv7();

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  @ManyToOne(() => WebhookEndpoint, { deleteRule: 'cascade' })
  endpoint!: WebhookEndpoint;

  @Property({ type: 'text' })
  eventType!: string;

  /** Events of this type the learner read. */
  @Property({ type: new BigIntType('number') })
  eventCount!: number;

  /** Of them, learned into the shape (all until warm, then a sample). */
  @Property({ type: new BigIntType('number') })
  learnedCount!: number;

  @Property({ type: 'timestamptz' })
  firstSeenAt!: Date;

  @Property({ type: 'timestamptz' })
  lastSeenAt!: Date;

  @Property({ type: 'jsonb' })
  shape!: ShapeNode;

  @Property({ type: 'int' })
  pathCount!: number;

  /** Paths were left out: the shape reached SHAPE_LIMITS.maxPaths. */
  @Property({ type: 'boolean' })
  truncated!: boolean;

  /** Shape hash → its example. */
  @Property({ type: 'jsonb' })
  shapes!: Record<string, ShapeExample>;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}

export const SCHEMA_CHANGE_KINDS = ['changed', 'new_event_type'] as const;
export type SchemaChangeKind = (typeof SCHEMA_CHANGE_KINDS)[number];

/** What one event changed in a learned schema (the drift history). */
@Entity({ tableName: 'schema_changes' })
@Index({ name: 'schema_changes_schema_idx', properties: ['schema', 'id'] })
export class SchemaChange {
  @PrimaryKey({ type: 'uuid' })
  id: string = uuidv7();

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  @ManyToOne(() => WebhookEndpoint, { deleteRule: 'cascade' })
  endpoint!: WebhookEndpoint;

  @ManyToOne(() => EventSchema, { deleteRule: 'cascade' })
  schema!: EventSchema;

  @Property({ type: 'text' })
  eventType!: string;

  @Enum({ items: () => SCHEMA_CHANGE_KINDS, type: 'text' })
  kind!: SchemaChangeKind;

  @Property({ type: 'jsonb' })
  added!: string[];

  @Property({ type: 'jsonb' })
  removed!: string[];

  @Property({ type: 'jsonb' })
  retyped!: Retyped[];

  /** The event that showed it (it may since have expired). */
  @Property({ type: 'uuid' })
  eventId!: string;

  @Property({ type: 'timestamptz' })
  detectedAt!: Date;

  /** Whether it opened or grew an issue and emitted `relay.source.schema_changed`. */
  @Property({ type: 'boolean' })
  alerted!: boolean;

  @Property({ type: 'uuid', nullable: true })
  issueId?: string | null;

  /** When a user made its new shape the expected one. */
  @Property({ type: 'timestamptz', nullable: true })
  acceptedAt?: Date | null;
}

/** When a source's events arrive, and whether it is silent (docs/schemas.md "Silence"). */
@Entity({ tableName: 'source_activity' })
export class SourceActivity {
  @PrimaryKey({ type: 'uuid' })
  endpointId!: string;

  @Property({ type: 'uuid' })
  projectId!: string;

  @Property({ type: new BigIntType('number') })
  eventCount!: number;

  /** Events of types past the per-source limit: counted, not learned. */
  @Property({ type: new BigIntType('number') })
  untrackedEventCount!: number;

  @Property({ type: 'timestamptz', nullable: true })
  firstEventAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  lastEventAt?: Date | null;

  /** Histogram of the gaps between consecutive events (src/schemas/silence.ts). */
  @Property({ type: 'int[]' })
  gaps!: number[];

  @Property({ type: 'int', nullable: true })
  learnedIntervalSeconds?: number | null;

  /** Since when the current expectation applies (a source without events is silent from here). */
  @Property({ type: 'timestamptz' })
  expectationSince!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  silentSince?: Date | null;
}
