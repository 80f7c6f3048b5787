import { Entity, Index, ManyToOne, Property, Unique } from '@mikro-orm/core';
import { BaseEntity } from '../db/base.entity';
import { User } from '../users/user.entity';

/** A provider account that signs in as a user (OAuth sign-in). */
@Entity({ tableName: 'user_identities' })
@Unique({ properties: ['provider', 'providerUserId'] })
export class UserIdentity extends BaseEntity {
  @ManyToOne(() => User, { deleteRule: 'cascade' })
  @Index()
  user!: User;

  @Property({ type: 'text' })
  provider!: string;

  @Property({ type: 'text' })
  providerUserId!: string;
}
