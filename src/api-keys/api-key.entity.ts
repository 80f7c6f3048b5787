import { Entity, ManyToOne, Property, Unique } from '@mikro-orm/core';
import { BaseEntity } from '../db/base.entity';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';

/** Project API key `svc_…`: stored as a SHA-256 hash, shown once at creation. */
@Entity({ tableName: 'api_keys' })
export class ApiKey extends BaseEntity {
  @ManyToOne(() => Project, { deleteRule: 'cascade', index: true })
  project!: Project;

  @Property({ type: 'text' })
  name!: string;

  /** Visible prefix, e.g. `svc_AbCd1234`. */
  @Property({ type: 'text' })
  prefix!: string;

  @Property({ type: 'text', hidden: true })
  @Unique()
  keyHash!: string;

  @ManyToOne(() => User, { nullable: true, deleteRule: 'set null' })
  createdBy?: User | null;

  @Property({ type: 'timestamptz', nullable: true })
  lastUsedAt?: Date | null;

  @Property({ type: 'timestamptz', nullable: true })
  revokedAt?: Date | null;
}
