import { Entity, ManyToOne, Property } from '@mikro-orm/core';
import { BaseEntity } from '../db/base.entity';
import { Project } from '../projects/project.entity';

/** `config` is v1 (flat) or v2 (`{version: 2, platforms: {...}}`); see src/templates. */
@Entity({ tableName: 'message_templates' })
export class MessageTemplate extends BaseEntity {
  @ManyToOne(() => Project, { deleteRule: 'cascade', index: true })
  project!: Project;

  @Property({ type: 'text' })
  name!: string;

  @Property({ type: 'jsonb' })
  config!: Record<string, unknown>;
}
