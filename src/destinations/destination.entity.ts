import { Entity, Enum, Formula, ManyToOne, type Opt, Property } from '@mikro-orm/core';
import { DEFAULT_RETRY_POLICY, DESTINATION_TYPES, type DestinationType, type RetryPolicy } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { Project } from '../projects/project.entity';
import { SIGNATURE_SCHEMES, type SignatureScheme } from '../sending/signature';

export const DESTINATION_PAUSE_REASONS = ['user', 'receiver_gone'] as const;
export type DestinationPauseReason = (typeof DESTINATION_PAUSE_REASONS)[number];

export interface DestinationCircuit {
  state: 'closed' | 'open' | 'half_open';
  consecutive_failures: number;
  opened_at: string | null;
  next_probe_at: string | null;
  last_error: string | null;
}

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

  /** Sealed chat-platform bot token (docs/delivery.md#chat-destinations). */
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

  /** Why it is paused: `user`, or `receiver_gone` (a 410 Gone answer paused it); null while active. */
  @Property({ type: 'text', nullable: true })
  pausedReason?: DestinationPauseReason | null;

  @Property({ type: 'timestamptz', nullable: true })
  pausedAt?: Date | null;

  /** How deliveries are signed: `service` (X-{prefix}-Signature) or `standard` (Standard Webhooks); docs/internals/sending.md. */
  @Enum({ items: () => SIGNATURE_SCHEMES, type: 'text', default: 'service' })
  signatureScheme: SignatureScheme & Opt = 'service';

  /** Webhook type only; sealed, write-only. */
  @Property({ type: 'text', nullable: true, hidden: true })
  signingSecretEnc?: string | null;

  /** Rotated-out secret; deliveries also carry `X-{prefix}-Signature-Previous` until the overlap ends. */
  @Property({ type: 'text', nullable: true, hidden: true })
  previousSigningSecretEnc?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  previousSecretExpiresAt?: Date | null;

  /** Attempts in flight at once, all workers together; null: RELAY_DESTINATION_MAX_CONCURRENCY (docs/delivery.md). */
  @Property({ type: 'int', nullable: true })
  maxConcurrency?: number | null;

  /** The circuit breaker's state, read-only (written by relay_finish_attempt); absent: closed, never failed. */
  @Formula(
    (alias) =>
      `(select json_build_object('state', c.state, 'consecutive_failures', c.consecutive_failures, 'opened_at', c.opened_at, ` +
      `'next_probe_at', c.next_probe_at, 'last_error', c.last_error) from destination_circuits c where c.destination_id = ${alias}.id)`,
    { type: 'json', nullable: true },
  )
  circuit?: DestinationCircuit | null;

  /** `cli` destinations: per-session settings (transform, template, delay, paused). */
  @Property({ type: 'jsonb', nullable: true })
  cliSession?: Record<string, unknown> | null;
}
