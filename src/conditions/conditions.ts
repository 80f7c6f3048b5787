import { RE2 } from 're2-wasm';
import type { Condition, Logic } from '../common/types';
import { FILTER_OPERATORS } from '../common/types';
import { type ConditionInput, parseFieldRef, resolveField, valueToText } from './field-path';

export type { ConditionInput } from './field-path';

/**
 * The seven filter operators (docs/ingress.md "Filters"), used by filter groups, typing
 * rules and routing rules alike. `exists` means present and non-empty;
 * `regex` runs on RE2 (linear time, no ReDoS).
 */

const regexCache = new Map<string, RE2 | Error>();
const REGEX_CACHE_LIMIT = 1000;

function compileRegex(pattern: string): RE2 | Error {
  let compiled = regexCache.get(pattern);
  if (!compiled) {
    try {
      compiled = new RE2(pattern, 'u');
    } catch (err) {
      compiled = err instanceof Error ? err : new Error(String(err));
    }
    if (regexCache.size >= REGEX_CACHE_LIMIT) regexCache.delete(regexCache.keys().next().value as string);
    regexCache.set(pattern, compiled);
  }
  return compiled;
}

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (typeof value === 'object') return Object.keys(value as object).length === 0;
  return false;
}

export function evaluateCondition(condition: Condition, input: ConditionInput): boolean {
  const ref = parseFieldRef(condition.field);
  if (!ref) return false;
  const raw = resolveField(ref, input);
  const expected = condition.value ?? '';
  switch (condition.operator) {
    case 'exists':
      return !isEmpty(raw);
    case 'not_exists':
      return isEmpty(raw);
    case 'eq':
      return valueToText(raw) === expected;
    case 'neq':
      return valueToText(raw) !== expected;
    case 'contains': {
      const text = valueToText(raw);
      return text !== undefined && text.includes(expected);
    }
    case 'not_contains': {
      const text = valueToText(raw);
      return text === undefined || !text.includes(expected);
    }
    case 'regex': {
      const text = valueToText(raw);
      const regex = compileRegex(expected);
      return text !== undefined && !(regex instanceof Error) && regex.test(text);
    }
    default:
      return false;
  }
}

/** `AND`: all hold; `OR`: at least one holds. No conditions: true. */
export function evaluateConditions(conditions: readonly Condition[], logic: Logic, input: ConditionInput): boolean {
  if (conditions.length === 0) return true;
  return logic === 'OR'
    ? conditions.some((c) => evaluateCondition(c, input))
    : conditions.every((c) => evaluateCondition(c, input));
}

/** Why a condition cannot be saved, or null when it is valid. Used when filters and rules are saved. */
export function validateCondition(condition: Partial<Condition>): string | null {
  if (typeof condition.field !== 'string' || !parseFieldRef(condition.field)) {
    return 'field must be "header.<Name>" or "body.<dot.path>"';
  }
  if (!condition.operator || !(FILTER_OPERATORS as readonly string[]).includes(condition.operator)) {
    return `operator must be one of ${FILTER_OPERATORS.join(', ')}`;
  }
  if (condition.value !== undefined && condition.value !== null && typeof condition.value !== 'string') {
    return 'value must be a string';
  }
  if (condition.operator === 'regex') {
    const compiled = compileRegex(condition.value ?? '');
    if (compiled instanceof Error) return `invalid regular expression: ${compiled.message}`;
  }
  return null;
}
