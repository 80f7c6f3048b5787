import { Entity, Enum, Index, type Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { uuidv7 } from '../common/ids';
import { EVENT_STATUSES, type EventStatus } from '../common/types';

/**
 * A stored webhook request. Written on the ingress hot path with plain SQL
 * (src/ingress), so relations are kept as bare uuid columns.
 * `payload` is `json` (not `jsonb`): the body's text is kept as sent, key order
 * included, and inserts skip the binary conversion. Search data lives in the
 * `event_search` table, written by the outbox fan-out, not on this hot path.
 */
@Entity({ tableName: 'events' })
@Unique({ name: 'events_endpoint_idempotency_key_unique', properties: ['endpointId', 'idempotencyKey'] })
@Index({ name: 'events_endpoint_id_idx', properties: ['endpointId', 'id'] })
@Index({ name: 'events_project_id_idx', properties: ['projectId', 'id'] })
@Index({
  name: 'events_undispatched_idx',
  expression: `create index "events_undispatched_idx" on "events" ("id") where "dispatched_at" is null`,
})
@Index({
  name: 'events_undispatched_endpoint_idx',
  expression: `create index "events_undispatched_endpoint_idx" on "events" ("endpoint_id", "id") where "dispatched_at" is null`,
})
export class Event {
  @PrimaryKey({ type: 'uuid' })
  id: string = uuidv7();

  @Property({ type: 'uuid' })
  endpointId!: string;

  @Property({ type: 'uuid' })
  projectId!: string;

  @Property({ type: 'uuid' })
  organizationId!: string;

  /** Empty string when no rule yields a type (docs/ingress.md#event-types). */
  @Property({ type: 'text', default: '' })
  eventType: string & Opt = '';

  @Property({ type: 'json', columnType: 'json' })
  payload!: unknown;

  /** The payload's exact stored text (JSON.parse rounds numbers past double precision); loaded only when populated. */
  @Property({ formula: (alias) => `${alias}.payload::text`, type: 'text', lazy: true, persist: false })
  payloadText?: string;

  @Property({ type: 'json', columnType: 'json' })
  headers!: Record<string, string>;

  @Property({ type: 'text', nullable: true })
  sourceIp?: string | null;

  @Property({ type: 'text', nullable: true })
  idempotencyKey?: string | null;

  @Enum({ items: () => EVENT_STATUSES, type: 'text' })
  status!: EventStatus;

  /** Outbox marker: set once the event's deliveries (none for a filtered event) and search row exist (src/deliveries). */
  @Property({ type: 'timestamptz', nullable: true })
  dispatchedAt?: Date | null;

  /** Set when the outbox could not fan the event out even on its own (docs/internals/delivery.md "Quarantined events"): not delivered. */
  @Property({ type: 'timestamptz', nullable: true })
  quarantinedAt?: Date | null;

  /** Why it was quarantined: the database's error, with its SQLSTATE. */
  @Property({ type: 'text', nullable: true })
  quarantineReason?: string | null;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();
}
