import { Entity, Property, Unique } from '@mikro-orm/core';
import { BaseEntity } from '../db/base.entity';

@Entity({ tableName: 'users' })
export class User extends BaseEntity {
  /** Stored lower-cased. */
  @Property({ type: 'text' })
  @Unique()
  email!: string;

  @Property({ type: 'text', nullable: true })
  name?: string | null;

  /** argon2id hash; null for users who only sign in through OAuth. */
  @Property({ type: 'text', nullable: true, hidden: true })
  passwordHash?: string | null;
}
