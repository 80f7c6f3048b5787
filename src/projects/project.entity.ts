import { Entity, ManyToOne, type Opt, Property, Unique } from '@mikro-orm/core';
import { DEFAULT_HEADER_PREFIX } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { Organization } from '../organizations/organization.entity';
import { User } from '../users/user.entity';

@Entity({ tableName: 'projects' })
@Unique({ properties: ['organization', 'slug'] })
export class Project extends BaseEntity {
  @ManyToOne(() => Organization, { deleteRule: 'cascade' })
  organization!: Organization;

  /** The owning user (`user_id`). */
  @ManyToOne(() => User, { deleteRule: 'restrict' })
  user!: User;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  slug!: string;

  /** Outgoing headers are `X-{headerPrefix}-Event-ID` etc. */
  @Property({ type: 'text', default: DEFAULT_HEADER_PREFIX })
  headerPrefix: string & Opt = DEFAULT_HEADER_PREFIX;

  /** Null means the deployment default (RELAY_EVENT_RETENTION_DAYS). */
  @Property({ type: 'integer', nullable: true })
  retentionDays?: number | null;

  @Property({ type: 'timestamptz', nullable: true })
  archivedAt?: Date | null;
}
