import { Entity, Enum, type Opt, Property } from '@mikro-orm/core';
import { PLANS, type Plan } from '../common/types';
import { BaseEntity } from '../db/base.entity';

@Entity({ tableName: 'organizations' })
export class Organization extends BaseEntity {
  @Property({ type: 'text' })
  name!: string;

  @Enum({ items: () => PLANS, nativeEnumName: undefined, type: 'text', default: 'free' })
  plan: Plan & Opt = 'free';
}
