import { Entity, Enum, ManyToOne, type Opt, Property } from '@mikro-orm/core';
import { OAUTH_PROVIDERS, type OAuthProvider } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { Project } from '../projects/project.entity';

@Entity({ tableName: 'oauth_connections' })
export class OAuthConnection extends BaseEntity {
  @ManyToOne(() => Project, { deleteRule: 'cascade', index: true })
  project!: Project;

  @Enum({ items: () => OAUTH_PROVIDERS, type: 'text' })
  provider!: OAuthProvider;

  @Property({ type: 'text', nullable: true })
  providerUserId?: string | null;

  @Property({ type: 'text', nullable: true })
  providerUsername?: string | null;

  /** Comma-separated. */
  @Property({ type: 'text', default: '' })
  scopes: string & Opt = '';

  @Property({ type: 'jsonb', default: '{}' })
  metadata: Record<string, unknown> & Opt = {};

  @Property({ type: 'text', nullable: true, hidden: true })
  accessTokenEnc?: string | null;

  @Property({ type: 'text', nullable: true, hidden: true })
  refreshTokenEnc?: string | null;

  @Property({ type: 'timestamptz', nullable: true })
  tokenExpiresAt?: Date | null;
}
