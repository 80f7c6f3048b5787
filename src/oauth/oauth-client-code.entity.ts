import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/core';
import { BaseEntity } from '../db/base.entity';
import { User } from '../users/user.entity';

/**
 * The one-time code an OAuth sign-in started by a client (the CLI's loopback
 * server, the dashboard's `/oauth/callback` page) ends with: the API's
 * callback sends the browser to the client's redirect URI with it, and the
 * client exchanges it, with the PKCE verifier of `codeChallenge`, for a
 * session. Kept as a hash; short-lived; deleted when used.
 */
@Entity({ tableName: 'oauth_client_codes' })
export class OAuthClientCode extends BaseEntity {
  @Property({ type: 'text', hidden: true })
  @Unique()
  codeHash!: string;

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User;

  /** BASE64URL(SHA-256(verifier)) the client sent when it started the flow. */
  @Property({ type: 'text' })
  codeChallenge!: string;

  @Property({ type: 'timestamptz' })
  @Index()
  expiresAt!: Date;
}
