import { Entity, Enum, Index, ManyToOne, Unique } from '@mikro-orm/core';
import { ROLES, type Role } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { User } from '../users/user.entity';
import { Organization } from './organization.entity';

@Entity({ tableName: 'organization_members' })
@Unique({ properties: ['organization', 'user'] })
export class OrganizationMember extends BaseEntity {
  @ManyToOne(() => Organization, { deleteRule: 'cascade' })
  organization!: Organization;

  @ManyToOne(() => User, { deleteRule: 'cascade' })
  @Index()
  user!: User;

  @Enum({ items: () => ROLES, type: 'text' })
  role!: Role;
}
