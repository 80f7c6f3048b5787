import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/core';
import { BaseEntity } from '../db/base.entity';
import { User } from '../users/user.entity';

/** Rotating refresh tokens: only the SHA-256 of the token is stored. */
@Entity({ tableName: 'refresh_tokens' })
export class RefreshToken extends BaseEntity {
  @ManyToOne(() => User, { deleteRule: 'cascade' })
  @Index()
  user!: User;

  @Property({ type: 'text', hidden: true })
  @Unique()
  tokenHash!: string;

  /** Tokens minted by rotation share a family, so reuse of a spent token revokes the whole family. */
  @Property({ type: 'uuid' })
  @Index()
  familyId!: string;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;
}
