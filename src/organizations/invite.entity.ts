import { Entity, Enum, Index, ManyToOne, Property, Unique } from '@mikro-orm/core';
import { ROLES, type Role } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { User } from '../users/user.entity';
import { Organization } from './organization.entity';

@Entity({ tableName: 'invites' })
export class Invite extends BaseEntity {
  @ManyToOne(() => Organization, { deleteRule: 'cascade' })
  @Index()
  organization!: Organization;

  /** Stored lower-cased. */
  @Property({ type: 'text' })
  email!: string;

  @Enum({ items: () => ROLES, type: 'text' })
  role!: Role;

  @Property({ type: 'text', hidden: true })
  @Unique()
  tokenHash!: string;

  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null' })
  invitedBy?: User | null;

  @Property({ type: 'timestamptz' })
  expiresAt!: Date;

  @Property({ type: 'timestamptz', nullable: true })
  acceptedAt?: Date | null;
}
