import { ApiError } from './api-client';
import { describeFilter, describeFilters, filterRefusal, parseEventTypes, parseFilter } from './listen-filter';

describe('listen --filter and --event-type', () => {
  it('reads a field, one of the seven operators and the rest as the value', () => {
    expect(parseFilter('body.action eq opened')).toEqual({ field: 'body.action', operator: 'eq', value: 'opened' });
    expect(parseFilter("body.title contains 'big fix'")).toEqual({ field: 'body.title', operator: 'contains', value: 'big fix' });
    expect(parseFilter('body.ref regex ^refs/tags/v\\d+')).toEqual({ field: 'body.ref', operator: 'regex', value: '^refs/tags/v\\d+' });
    expect(parseFilter('header.X-Env exists')).toEqual({ field: 'header.X-Env', operator: 'exists' });
    expect(parseFilter('body.a NEQ "x y"')).toEqual({ field: 'body.a', operator: 'neq', value: 'x y' });
  });

  it('refuses what it cannot read, with the reason', () => {
    expect(() => parseFilter('action')).toThrow(/invalid --filter "action": give a field, an operator and a value/);
    expect(() => parseFilter('action eq x')).toThrow(/the field must be "header.<Name>" or "body.<dot.path>", not "action"/);
    expect(() => parseFilter('body.a is x')).toThrow(/the operator must be one of eq, neq, contains, not_contains, exists, not_exists, regex, not "is"/);
    expect(() => parseFilter('body.a eq')).toThrow(/eq needs a value/);
    expect(() => parseFilter('body.a exists yes')).toThrow(/exists takes no value/);
    expect(() => parseFilter('body.a eq')).toThrow(expect.objectContaining({ exitCode: 2 }));
  });

  it('splits event types and describes the filters for the header', () => {
    expect(parseEventTypes(['push, pull_request', 'push'])).toEqual(['push', 'pull_request']);
    expect(describeFilters([], [])).toBeNull();
    expect(describeFilters(['push', 'ping'], [{ field: 'body.a', operator: 'eq', value: '1' }, { field: 'header.x', operator: 'exists' }])).toBe(
      'event type push or ping and body.a eq "1" and header.x exists',
    );
  });

  it('shows a filter as text parseFilter reads back (the c menu)', () => {
    for (const text of ['body.title contains "big fix"', 'header.X-Env exists', 'body.ref regex "^refs/tags/v\\d+"', `body.a eq 'say "hi"'`]) expect(describeFilter(parseFilter(text))).toBe(text);
  });

  it("says the API's refusal of a condition in the words of the filter it came from, with its place", () => {
    const refusal = filterRefusal(new ApiError('filters.1.value: invalid regular expression: missing )', 'invalid_input'), ['body.a eq 1', 'body.ref regex (x']);
    expect(refusal).toMatchObject({ index: 1, exitCode: 2, message: 'invalid --filter "body.ref regex (x": invalid regular expression: missing )' });
    expect(filterRefusal(new ApiError('transformName: not found', 'invalid_input'), [])).toBeNull();
    expect(filterRefusal(new Error('filters.0: x'), ['a'])).toBeNull();
  });
});
