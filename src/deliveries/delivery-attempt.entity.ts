import { Entity, Enum, Index, ManyToOne, type Opt, PrimaryKey, Property, Unique } from '@mikro-orm/core';
import { uuidv7 } from '../common/ids';
import { ATTEMPT_STATUSES, type AttemptStatus } from '../common/types';
import { Delivery } from './delivery.entity';

@Entity({ tableName: 'delivery_attempts' })
@Unique({ properties: ['delivery', 'attemptNumber'] })
@Index({ name: 'delivery_attempts_event_id_idx', properties: ['eventId', 'id'] })
@Index({ name: 'delivery_attempts_destination_id_idx', properties: ['destinationId', 'id'] })
export class DeliveryAttempt {
  @PrimaryKey({ type: 'uuid' })
  id: string = uuidv7();

  @ManyToOne(() => Delivery, { deleteRule: 'cascade' })
  delivery!: Delivery;

  @Property({ type: 'uuid' })
  eventId!: string;

  @Property({ type: 'uuid' })
  destinationId!: string;

  /** 1-based within its delivery; `rate_limited` attempts take a number too but do not count towards max_attempts. */
  @Property({ type: 'integer' })
  attemptNumber!: number;

  @Enum({ items: () => ATTEMPT_STATUSES, type: 'text' })
  status!: AttemptStatus;

  @Property({ type: 'integer', nullable: true })
  statusCode?: number | null;

  /** First 4096 bytes, cut on a UTF-8 boundary (docs/concepts.md#events-deliveries-and-attempts). */
  @Property({ type: 'text', nullable: true })
  responseBody?: string | null;

  @Property({ type: 'boolean', default: false })
  responseBodyTruncated: boolean & Opt = false;

  @Property({ type: 'jsonb', nullable: true })
  responseHeaders?: Record<string, string> | null;

  @Property({ type: 'text', nullable: true })
  error?: string | null;

  @Property({ type: 'integer', nullable: true })
  latencyMs?: number | null;

  @Property({ type: 'timestamptz', nullable: true })
  nextRetryAt?: Date | null;

  @Property({ type: 'json', columnType: 'json', nullable: true })
  payloadSent?: unknown;

  @Property({ type: 'timestamptz', defaultRaw: 'now()' })
  createdAt: Date & Opt = new Date();

  @Property({ type: 'timestamptz', defaultRaw: 'now()', onUpdate: () => new Date() })
  updatedAt: Date & Opt = new Date();
}
