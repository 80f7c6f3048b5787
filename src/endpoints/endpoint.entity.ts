import { Entity, Enum, ManyToOne, type Opt, Property, Unique } from '@mikro-orm/core';
import { ENDPOINT_PROVIDERS, type EndpointProvider, SCHEMA_ALERTS, type SchemaAlerts, SILENCE_ALERTS, type SilenceAlerts, type TypingRule } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { OAuthConnection } from '../oauth/oauth-connection.entity';
import { Project } from '../projects/project.entity';

/** A source: receives `POST /hooks/:slug`. */
@Entity({ tableName: 'webhook_endpoints' })
export class WebhookEndpoint extends BaseEntity {
  @ManyToOne(() => Project, { deleteRule: 'cascade', index: true })
  project!: Project;

  @Property({ type: 'text' })
  name!: string;

  /** Globally unique; the ingress lookup key. */
  @Property({ type: 'text' })
  @Unique()
  slug!: string;

  /** AES-GCM sealed (src/common/secret-box.ts); never returned. Null only for the system source (it receives no requests). */
  @Property({ type: 'text', nullable: true, hidden: true })
  signingSecretEnc?: string | null;

  /** The secret being rotated out; accepted until `previousSecretExpiresAt`. */
  @Property({ type: 'text', nullable: true, hidden: true })
  previousSigningSecretEnc?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  previousSecretExpiresAt?: Date | null;

  @Property({ type: 'text', nullable: true })
  eventTypePath?: string | null;

  @Property({ type: 'text', nullable: true })
  eventTypeHeader?: string | null;

  @Property({ type: 'jsonb', default: '[]' })
  typingRules: TypingRule[] & Opt = [];

  @Property({ type: 'boolean', default: true })
  isActive: boolean & Opt = true;

  @Enum({ items: () => ENDPOINT_PROVIDERS, type: 'text', nullable: true })
  provider?: EndpointProvider | null;

  @Property({ type: 'text', nullable: true })
  providerRepo?: string | null;

  @Property({ type: 'text', nullable: true })
  providerWebhookId?: string | null;

  @ManyToOne(() => OAuthConnection, { nullable: true, deleteRule: 'set null' })
  oauthConnection?: OAuthConnection | null;

  /**
   * The project's system source (one per project, made with the project): the service emits its
   * operational events on it; it receives no HTTP requests and cannot be deleted (docs/operational-events.md).
   */
  @Property({ type: 'boolean', default: false })
  isSystem: boolean & Opt = false;

  /** Which payload changes open an issue and emit `relay.source.schema_changed` (docs/schemas.md). */
  @Enum({ items: () => SCHEMA_ALERTS, type: 'text', default: 'changes' })
  schemaAlerts: SchemaAlerts & Opt = 'changes';

  /** Whether a quiet source alerts: after its learned expectation, after `expectedIntervalSeconds`, or never. */
  @Enum({ items: () => SILENCE_ALERTS, type: 'text', default: 'learned' })
  silenceAlerts: SilenceAlerts & Opt = 'learned';

  /** "At least one event every … seconds" (with `silenceAlerts: expected_interval`). */
  @Property({ type: 'int', nullable: true })
  expectedIntervalSeconds?: number | null;

  /** Created by an installed integration: never rate-limited (docs/ingress.md#limits). */
  @Property({ type: 'boolean', default: false })
  isIntegration: boolean & Opt = false;
}
