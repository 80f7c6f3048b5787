import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/core';
import { BaseEntity } from '../db/base.entity';
import { User } from '../users/user.entity';

/**
 * The one-time code an OAuth sign-in started by `relay login --oauth` ends
 * with: the API's callback sends the browser to the CLI's loopback address
 * with it, and the CLI exchanges it, with the PKCE verifier of
 * `codeChallenge`, for a session. Kept as a hash; short-lived; deleted when used.
 */
@Entity({ tableName: 'oauth_cli_codes' })
export class CliAuthCode extends BaseEntity {
  @Property({ type: 'text', hidden: true })
  @Unique()
  codeHash!: string;

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  user!: User;

  /** BASE64URL(SHA-256(verifier)) the CLI sent when it started the flow. */
  @Property({ type: 'text' })
  codeChallenge!: string;

  @Property({ type: 'timestamptz' })
  @Index()
  expiresAt!: Date;
}
