import { Entity, ManyToOne, Property } from '@mikro-orm/core';
import { BaseEntity } from '../db/base.entity';
import { Project } from '../projects/project.entity';

/** A named JSONata expression evaluated against the payload. */
@Entity({ tableName: 'transforms' })
export class Transform extends BaseEntity {
  @ManyToOne(() => Project, { deleteRule: 'cascade', index: true })
  project!: Project;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'text' })
  expression!: string;
}
