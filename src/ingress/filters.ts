import { ValidationError } from '../common/errors';
import type { Condition, Logic } from '../common/types';
import { LOGICS } from '../common/types';
import { type ConditionInput, evaluateConditions, validateCondition } from '../conditions/conditions';

export interface FilterGroupSpec {
  logic: Logic;
  isEnabled: boolean;
  conditions: readonly Condition[];
}

/**
 * SPEC "Filtering": groups combine with OR, `logic` applies inside a group.
 * Disabled groups are ignored, so an endpoint whose groups are all disabled
 * behaves like one without filters (every event passes).
 */
export function passesFilters(groups: readonly FilterGroupSpec[], input: ConditionInput): boolean {
  const enabled = groups.filter((g) => g.isEnabled);
  if (enabled.length === 0) return true;
  return enabled.some((g) => evaluateConditions(g.conditions, g.logic, input));
}

/** For the code that saves filter groups: refuses bad fields, operators and invalid (or non-RE2) regexes. */
export function validateFilterGroup(group: { logic?: string; conditions?: Array<Partial<Condition>> }): void {
  if (group.logic !== undefined && !(LOGICS as readonly string[]).includes(group.logic)) {
    throw new ValidationError('logic must be AND or OR.', { field: 'logic' });
  }
  (group.conditions ?? []).forEach((condition, i) => {
    const problem = validateCondition(condition);
    if (problem) throw new ValidationError(`conditions[${i}]: ${problem}.`, { field: `conditions[${i}]` });
  });
}
