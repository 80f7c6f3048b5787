import { Entity, Enum, ManyToOne, type Opt, Property, Unique } from '@mikro-orm/core';
import { ENDPOINT_PROVIDERS, type EndpointProvider, type TypingRule } from '../common/types';
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

  /** Created by an installed integration: never rate-limited (docs/ingress.md#limits). */
  @Property({ type: 'boolean', default: false })
  isIntegration: boolean & Opt = false;
}
