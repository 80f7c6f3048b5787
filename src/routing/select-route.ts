import type { RoutingRule } from '../common/types';
import { LOGICS } from '../common/types';
import { type ConditionInput, evaluateConditions, validateCondition } from '../conditions/conditions';

/**
 * Routing rules of an endpoint-destination link (docs/templates.md#routing-rules): tried in
 * order over the event; the first whose conditions hold picks the template
 * and/or transform. What a matching rule leaves unset (absent or null) keeps
 * the link's default; with no rule matching, the link's defaults apply.
 */

export interface RouteLink {
  templateId: string | null;
  transformId: string | null;
  routingRules: RoutingRule[];
}

export interface SelectedRoute {
  templateId: string | null;
  transformId: string | null;
  /** The rule that matched, or null when the link's defaults apply. */
  ruleName: string | null;
}

export type { ConditionInput };

export function selectRoute(link: RouteLink, input: ConditionInput): SelectedRoute {
  for (const rule of link.routingRules ?? []) {
    if (evaluateConditions(rule.conditions ?? [], rule.logic === 'OR' ? 'OR' : 'AND', input)) {
      return {
        templateId: rule.template_id ?? link.templateId,
        transformId: rule.transform_id ?? link.transformId,
        ruleName: rule.name,
      };
    }
  }
  return { templateId: link.templateId, transformId: link.transformId, ruleName: null };
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const MAX_ROUTING_RULES = 50;

/**
 * Why a list of routing rules cannot be saved: `[]` when valid. Paths are
 * like `routing_rules[1].conditions[0].field`. Whether the ids belong to the
 * project is for the caller to check.
 */
export function validateRoutingRules(rules: unknown): Array<{ path: string; message: string }> {
  if (!Array.isArray(rules)) return [{ path: 'routing_rules', message: 'routing_rules must be an array' }];
  if (rules.length > MAX_ROUTING_RULES) return [{ path: 'routing_rules', message: `at most ${MAX_ROUTING_RULES} routing rules` }];
  const errors: Array<{ path: string; message: string }> = [];
  rules.forEach((rule: unknown, i) => {
    const at = `routing_rules[${i}]`;
    if (!rule || typeof rule !== 'object' || Array.isArray(rule)) {
      errors.push({ path: at, message: 'a routing rule must be an object' });
      return;
    }
    const r = rule as Record<string, unknown>;
    if (typeof r.name !== 'string' || r.name.trim() === '') errors.push({ path: `${at}.name`, message: 'name is required' });
    if (!(LOGICS as readonly unknown[]).includes(r.logic)) errors.push({ path: `${at}.logic`, message: 'logic must be AND or OR' });
    for (const key of ['template_id', 'transform_id'] as const) {
      const id = r[key];
      if (id !== undefined && id !== null && (typeof id !== 'string' || !UUID.test(id))) {
        errors.push({ path: `${at}.${key}`, message: `${key} must be a UUID or null` });
      }
    }
    if (!r.template_id && !r.transform_id) {
      errors.push({ path: at, message: 'a routing rule must pick a template_id and/or a transform_id' });
    }
    if (!Array.isArray(r.conditions)) {
      errors.push({ path: `${at}.conditions`, message: 'conditions must be an array (empty: always matches)' });
      return;
    }
    r.conditions.forEach((condition: unknown, j) => {
      const problem =
        condition && typeof condition === 'object' ? validateCondition(condition as Record<string, never>) : 'a condition must be an object';
      if (problem) errors.push({ path: `${at}.conditions[${j}]`, message: problem });
    });
  });
  return errors;
}
