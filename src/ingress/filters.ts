import type { Condition, Logic } from '../common/types';
import { type ConditionInput, evaluateConditions } from '../conditions/conditions';

export interface FilterGroupSpec {
  logic: Logic;
  isEnabled: boolean;
  conditions: readonly Condition[];
}

/**
 * docs/ingress.md "Filters": groups combine with OR, `logic` applies inside a group.
 * Disabled groups are ignored, so an endpoint whose groups are all disabled
 * behaves like one without filters (every event passes).
 */
export function passesFilters(groups: readonly FilterGroupSpec[], input: ConditionInput): boolean {
  const enabled = groups.filter((g) => g.isEnabled);
  if (enabled.length === 0) return true;
  return enabled.some((g) => evaluateConditions(g.conditions, g.logic, input));
}
