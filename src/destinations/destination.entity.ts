import { Entity, Enum, ManyToOne, type Opt, Property } from '@mikro-orm/core';
import { DEFAULT_RETRY_POLICY, DESTINATION_TYPES, type DestinationType, type RetryPolicy } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { Project } from '../projects/project.entity';

@Entity({ tableName: 'destinations' })
export class Destination extends BaseEntity {
  @ManyToOne(() => Project, { deleteRule: 'cascade', index: true })
  project!: Project;

  @Property({ type: 'text' })
  name!: string;

  @Enum({ items: () => DESTINATION_TYPES, type: 'text' })
  type!: DestinationType;

  /** Sealed target URL; responses show only `webhookHost`. */
  @Property({ type: 'text', nullable: true, hidden: true })
  webhookUrlEnc?: string | null;

  @Property({ type: 'text', nullable: true })
  webhookHost?: string | null;

  /** Sealed chat-platform bot token (RULINGS.md §28). */
  @Property({ type: 'text', nullable: true, hidden: true })
  botTokenEnc?: string | null;

  @Property({ type: 'text', nullable: true })
  guildId?: string | null;

  @Property({ type: 'text', nullable: true })
  channelId?: string | null;

  @Property({ type: 'jsonb', default: JSON.stringify(DEFAULT_RETRY_POLICY) })
  retryPolicy: RetryPolicy & Opt = { ...DEFAULT_RETRY_POLICY };

  /** Include list; empty means every event type. */
  @Property({ type: 'jsonb', default: '[]' })
  eventTypes: string[] & Opt = [];

  @Property({ type: 'boolean', default: true })
  isActive: boolean & Opt = true;

  /** Webhook type only; sealed, write-only. */
  @Property({ type: 'text', nullable: true, hidden: true })
  signingSecretEnc?: string | null;

  /** Rotated-out secret; deliveries also carry `X-{prefix}-Signature-Previous` until the overlap ends. */
  @Property({ type: 'text', nullable: true, hidden: true })
  previousSigningSecretEnc?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  previousSecretExpiresAt?: Date | null;

  /** `cli` destinations: per-session settings (transform, template, delay, paused). */
  @Property({ type: 'jsonb', nullable: true })
  cliSession?: Record<string, unknown> | null;
}
