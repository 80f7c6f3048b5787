import { Entity, Enum, Index, ManyToOne, type Opt, Property, Unique } from '@mikro-orm/core';
import { BaseEntity } from '../db/base.entity';
import { Invite } from '../organizations/invite.entity';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';

export const OAUTH_PURPOSES = ['sign_in', 'connect'] as const;
export type OAuthPurpose = (typeof OAUTH_PURPOSES)[number];

/**
 * A started authorization-code flow, kept server-side until its callback:
 * the `state` (as a hash) binds the callback to this row, the PKCE verifier
 * is sealed. One-time: deleted when the callback uses it.
 */
@Entity({ tableName: 'oauth_states' })
export class OAuthState extends BaseEntity {
  @Property({ type: 'text', hidden: true })
  @Unique()
  stateHash!: string;

  @Property({ type: 'text' })
  provider!: string;

  @Enum({ items: () => OAUTH_PURPOSES, type: 'text' })
  purpose!: OAuthPurpose;

  @Property({ type: 'text', hidden: true })
  codeVerifierEnc!: string;

  /** Connect flows: who started it, and for which project. */
  @ManyToOne(() => User, { nullable: true, deleteRule: 'cascade' })
  user?: User | null;

  @ManyToOne(() => Project, { nullable: true, deleteRule: 'cascade' })
  project?: Project | null;

  /** Sign-in through an invite: join that organization instead of getting a default workspace. */
  @ManyToOne(() => Invite, { nullable: true, deleteRule: 'set null' })
  invite?: Invite | null;

  @Property({ type: 'text', default: '' })
  scopes: string & Opt = '';

  @Property({ type: 'boolean', default: false })
  createEndpoint: boolean & Opt = false;

  /** Sign-in from a client (CLI, dashboard): where the callback sends the browser with a one-time code, and the client's PKCE challenge. */
  @Property({ type: 'text', nullable: true })
  clientRedirectUri?: string | null;

  @Property({ type: 'text', nullable: true })
  clientCodeChallenge?: string | null;

  @Property({ type: 'timestamptz' })
  @Index()
  expiresAt!: Date;
}
