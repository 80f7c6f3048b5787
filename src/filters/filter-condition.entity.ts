import { Entity, Enum, ManyToOne, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { uuidv7 } from '../common/ids';
import { FILTER_OPERATORS, type FilterOperator } from '../common/types';
import { FilterGroup } from './filter-group.entity';

@Entity({ tableName: 'filter_conditions' })
export class FilterCondition {
  @PrimaryKey({ type: 'uuid' })
  id: string = uuidv7();

  /** The group it belongs to (column `filter_id`). */
  @ManyToOne(() => FilterGroup, { deleteRule: 'cascade', index: true, fieldName: 'filter_id' })
  filterGroup!: FilterGroup;

  /** `header.<Name>` or `body.<dot.path>`. */
  @Property({ type: 'text' })
  field!: string;

  @Enum({ items: () => FILTER_OPERATORS, type: 'text' })
  operator!: FilterOperator;

  @Property({ type: 'text', default: '' })
  value: string & Opt = '';

  /** 0-based order within the group. */
  @Property({ type: 'integer' })
  position!: number;
}
