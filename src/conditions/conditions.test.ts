import type { Condition } from '../common/types';
import { evaluateCondition, evaluateConditions, validateCondition } from './conditions';
import { getPath, parseFieldRef } from './field-path';

const input = {
  headers: { 'x-kind': 'push', 'x-empty': '' },
  body: { action: 'opened', count: 3, draft: false, labels: [], repo: { name: 'relay' }, commits: [{ id: 'a1' }, { id: 'b2' }], note: null },
};
const c = (field: string, operator: Condition['operator'], value?: string): Condition => ({ field, operator, value });

describe('field paths', () => {
  it.each([
    ['header.X-Kind', { source: 'header', name: 'x-kind' }],
    ['body.repo.name', { source: 'body', path: ['repo', 'name'] }],
    ['body.', null],
    ['body.a..b', null],
    ['query.x', null],
  ])('parses %s', (field, expected) => expect(parseFieldRef(field)).toEqual(expected));

  it('indexes arrays by number and ignores prototype keys', () => {
    expect(getPath(input.body, ['commits', '1', 'id'])).toBe('b2');
    expect(getPath(input.body, ['commits', 'x'])).toBeUndefined();
    expect(getPath({}, ['constructor'])).toBeUndefined();
  });
});

describe('operators', () => {
  it.each<[Condition, boolean]>([
    [c('header.X-KIND', 'eq', 'push'), true],
    [c('header.x-kind', 'neq', 'push'), false],
    [c('body.count', 'eq', '3'), true],
    [c('body.draft', 'eq', 'false'), true],
    [c('body.repo.name', 'contains', 'ela'), true],
    [c('body.repo.name', 'not_contains', 'ela'), false],
    [c('body.missing', 'not_contains', 'x'), true],
    [c('body.missing', 'contains', ''), false],
    [c('body.action', 'exists'), true],
    [c('body.labels', 'exists'), false],
    [c('body.note', 'exists'), false],
    [c('header.x-empty', 'exists'), false],
    [c('header.x-empty', 'not_exists'), true],
    [c('body.missing', 'not_exists'), true],
    [c('body.commits.0.id', 'regex', '^a\\d$'), true],
    [c('body.action', 'regex', '^clos'), false],
    [c('body.missing', 'neq', 'x'), true],
  ])('%j → %s', (condition, expected) => expect(evaluateCondition(condition, input)).toBe(expected));

  it('runs pathological patterns in linear time', () => {
    const evil = { headers: {}, body: { s: `${'a'.repeat(50_000)}!` } };
    expect(evaluateCondition(c('body.s', 'regex', '^(a+)+$'), evil)).toBe(false);
  });

  it('combines with AND / OR, and an empty list holds', () => {
    const yes = c('body.action', 'eq', 'opened');
    const no = c('body.action', 'eq', 'closed');
    expect(evaluateConditions([yes, no], 'AND', input)).toBe(false);
    expect(evaluateConditions([yes, no], 'OR', input)).toBe(true);
    expect(evaluateConditions([], 'AND', input)).toBe(true);
  });
});

describe('validateCondition', () => {
  it('refuses bad fields, operators and regexes; accepts good ones', () => {
    expect(validateCondition(c('payload.x', 'eq', 'a'))).toMatch(/field/);
    expect(validateCondition({ field: 'body.x', operator: 'like' as never })).toMatch(/operator/);
    expect(validateCondition(c('body.x', 'regex', '(unclosed'))).toMatch(/invalid regular expression/);
    expect(validateCondition(c('body.x', 'regex', '(?<=a)b'))).toMatch(/invalid regular expression/);
    expect(validateCondition(c('header.X-Kind', 'regex', '^push|pull$'))).toBeNull();
  });
});
