import { z } from 'zod';
import { FILTER_OPERATORS, LOGICS } from '../common/types';
import type { FilterCondition } from './filter-condition.entity';
import type { FilterGroup } from './filter-group.entity';

export const filterConditionView = z.object({
  id: z.uuid(),
  filter_id: z.uuid(),
  field: z.string(),
  operator: z.enum(FILTER_OPERATORS),
  value: z.string(),
  position: z.number().int().describe('0-based order within the group'),
});
export type FilterConditionView = z.infer<typeof filterConditionView>;

export const filterGroupView = z.object({
  id: z.uuid(),
  endpoint_id: z.uuid(),
  name: z.string(),
  logic: z.enum(LOGICS),
  is_enabled: z.boolean(),
  conditions: z.array(filterConditionView),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type FilterGroupView = z.infer<typeof filterGroupView>;

function toConditionView(c: FilterCondition): FilterConditionView {
  return { id: c.id, filter_id: c.filterGroup.id, field: c.field, operator: c.operator, value: c.value, position: c.position };
}

/** `group.conditions` must be loaded. */
export function toFilterGroupView(group: FilterGroup): FilterGroupView {
  return {
    id: group.id,
    endpoint_id: group.endpoint.id,
    name: group.name,
    logic: group.logic,
    is_enabled: group.isEnabled,
    conditions: group.conditions.getItems().sort((a, b) => a.position - b.position).map(toConditionView),
    created_at: group.createdAt.toISOString(),
    updated_at: group.updatedAt.toISOString(),
  };
}
