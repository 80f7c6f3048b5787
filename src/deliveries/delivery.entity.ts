import { Entity, Enum, Index, ManyToOne, type Opt, Property } from '@mikro-orm/core';
import { DELIVERY_STATUSES, type DeliveryStatus } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { Destination } from '../destinations/destination.entity';
import { Event } from '../events/event.entity';

/**
 * One delivery of one event to one destination; a replay is a new delivery.
 * Each runs as the Temporal workflow `delivery-<id>`.
 */
@Entity({ tableName: 'deliveries' })
@Index({ name: 'deliveries_destination_id_idx', properties: ['destination', 'id'] })
@Index({ name: 'deliveries_endpoint_id_idx', properties: ['endpointId', 'id'] })
@Index({ name: 'deliveries_due_idx', properties: ['status', 'nextRetryAt'] })
@Index({
  name: 'deliveries_unstarted_idx',
  expression: `create index "deliveries_unstarted_idx" on "deliveries" ("id") where "workflow_started_at" is null`,
})
@Index({
  name: 'deliveries_dead_letter_idx',
  expression: `create index "deliveries_dead_letter_idx" on "deliveries" ("project_id", "id") where "dead_lettered_at" is not null`,
})
export class Delivery extends BaseEntity {
  @ManyToOne(() => Event, { deleteRule: 'cascade', index: true })
  event!: Event;

  @ManyToOne(() => Destination, { deleteRule: 'cascade' })
  destination!: Destination;

  @Property({ type: 'uuid' })
  endpointId!: string;

  @Property({ type: 'uuid' })
  projectId!: string;

  /** The delivery this one replays (null for the first delivery of the event). */
  @Property({ type: 'uuid', nullable: true })
  replayOfId?: string | null;

  @Enum({ items: () => DELIVERY_STATUSES, type: 'text', default: 'queued' })
  status: DeliveryStatus & Opt = 'queued';

  @Property({ type: 'integer', default: 0 })
  attemptCount: number & Opt = 0;

  @Property({ type: 'timestamptz', nullable: true })
  nextRetryAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  workflowStartedAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  deadLetteredAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  completedAt?: Date | null;

  /** What the relay did to the delivery outside its attempts (its workflow lost and started again, or ended without an outcome). */
  @Property({ type: 'text', nullable: true })
  note?: string | null;
}
