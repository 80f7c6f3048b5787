import type { RoutingRule } from '../common/types';
import { selectRoute, validateRoutingRules } from './select-route';

const T_DEFAULT = '0190f5a2-0000-7000-8000-00000000000a';
const X_DEFAULT = '0190f5a2-0000-7000-8000-00000000000b';
const T_ISSUES = '0190f5a2-0000-7000-8000-000000000001';
const X_ISSUES = '0190f5a2-0000-7000-8000-000000000002';
const T_PUSH = '0190f5a2-0000-7000-8000-000000000003';

const rules: RoutingRule[] = [
  {
    name: 'issues',
    logic: 'AND',
    conditions: [
      { field: 'header.X-CodehostA-Event', operator: 'eq', value: 'issues' },
      { field: 'body.action', operator: 'eq', value: 'opened' },
    ],
    template_id: T_ISSUES,
    transform_id: X_ISSUES,
  },
  {
    name: 'push-or-tag',
    logic: 'OR',
    conditions: [
      { field: 'header.x-codehosta-event', operator: 'eq', value: 'push' },
      { field: 'body.ref', operator: 'regex', value: '^refs/tags/' },
    ],
    template_id: T_PUSH,
  },
  { name: 'catch-all transform', logic: 'AND', conditions: [{ field: 'body.urgent', operator: 'exists' }], transform_id: X_ISSUES },
];

const link = { templateId: T_DEFAULT, transformId: X_DEFAULT, routingRules: rules };

describe('selectRoute', () => {
  test.each([
    ['first rule, all conditions', { 'x-codehosta-event': 'issues' }, { action: 'opened' }, { templateId: T_ISSUES, transformId: X_ISSUES, ruleName: 'issues' }],
    ['AND needs every condition', { 'x-codehosta-event': 'issues' }, { action: 'closed' }, { templateId: T_DEFAULT, transformId: X_DEFAULT, ruleName: null }],
    ['OR: first condition', { 'x-codehosta-event': 'push' }, {}, { templateId: T_PUSH, transformId: X_DEFAULT, ruleName: 'push-or-tag' }],
    ['OR: second condition', {}, { ref: 'refs/tags/v1' }, { templateId: T_PUSH, transformId: X_DEFAULT, ruleName: 'push-or-tag' }],
    ['a rule picking only a transform keeps the default template', {}, { urgent: true }, { templateId: T_DEFAULT, transformId: X_ISSUES, ruleName: 'catch-all transform' }],
    ['first match wins', { 'x-codehosta-event': 'push' }, { urgent: true }, { templateId: T_PUSH, transformId: X_DEFAULT, ruleName: 'push-or-tag' }],
    ['no match: the link defaults', {}, {}, { templateId: T_DEFAULT, transformId: X_DEFAULT, ruleName: null }],
  ])('%s', (_name, headers, body, expected) => {
    expect(selectRoute(link, { headers, body })).toEqual(expected);
  });

  test('a rule without conditions always matches', () => {
    const always = { templateId: null, transformId: null, routingRules: [{ name: 'always', logic: 'AND' as const, conditions: [], template_id: T_PUSH }] };
    expect(selectRoute(always, { headers: {}, body: null })).toEqual({ templateId: T_PUSH, transformId: null, ruleName: 'always' });
  });

  test('no rules and no defaults', () => {
    expect(selectRoute({ templateId: null, transformId: null, routingRules: [] }, { headers: {}, body: {} })).toEqual({ templateId: null, transformId: null, ruleName: null });
  });
});

describe('validateRoutingRules', () => {
  test('valid rules', () => {
    expect(validateRoutingRules(rules)).toEqual([]);
  });

  test.each<[string, unknown, string, RegExp]>([
    ['not an array', {}, 'routing_rules', /array/],
    ['missing name', [{ logic: 'AND', conditions: [], template_id: T_PUSH }], 'routing_rules[0].name', /required/],
    ['bad logic', [{ name: 'r', logic: 'XOR', conditions: [], template_id: T_PUSH }], 'routing_rules[0].logic', /AND or OR/],
    ['bad id', [{ name: 'r', logic: 'AND', conditions: [], template_id: 'nope' }], 'routing_rules[0].template_id', /UUID/],
    ['picks nothing', [{ name: 'r', logic: 'AND', conditions: [] }], 'routing_rules[0]', /template_id and\/or a transform_id/],
    ['bad field', [{ name: 'r', logic: 'AND', conditions: [{ field: 'query.x', operator: 'eq' }], template_id: T_PUSH }], 'routing_rules[0].conditions[0]', /field must be/],
    ['bad regex', [{ name: 'r', logic: 'AND', conditions: [{ field: 'body.x', operator: 'regex', value: '(' }], template_id: T_PUSH }], 'routing_rules[0].conditions[0]', /regular expression/],
    ['conditions missing', [{ name: 'r', logic: 'AND', template_id: T_PUSH }], 'routing_rules[0].conditions', /array/],
  ])('%s', (_name, input, path, message) => {
    const problems = validateRoutingRules(input);
    expect(problems).toContainEqual({ path, message: expect.stringMatching(message) as unknown as string });
  });
});
