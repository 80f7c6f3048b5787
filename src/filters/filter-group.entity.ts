import { Cascade, Collection, Entity, Enum, ManyToOne, OneToMany, type Opt, Property } from '@mikro-orm/core';
import { LOGICS, type Logic } from '../common/types';
import { BaseEntity } from '../db/base.entity';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { FilterCondition } from './filter-condition.entity';

@Entity({ tableName: 'filter_groups' })
export class FilterGroup extends BaseEntity {
  @ManyToOne(() => WebhookEndpoint, { deleteRule: 'cascade', index: true })
  endpoint!: WebhookEndpoint;

  @Property({ type: 'text' })
  name!: string;

  @Enum({ items: () => LOGICS, type: 'text', default: 'AND' })
  logic: Logic & Opt = 'AND';

  @Property({ type: 'boolean', default: true })
  isEnabled: boolean & Opt = true;

  @OneToMany(() => FilterCondition, (c) => c.filterGroup, { cascade: [Cascade.ALL], orphanRemoval: true, orderBy: { position: 'asc' } })
  conditions = new Collection<FilterCondition>(this);
}
