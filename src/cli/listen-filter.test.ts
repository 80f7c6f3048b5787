import { describeFilters, parseEventTypes, parseFilter } from './listen-filter';

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
});
