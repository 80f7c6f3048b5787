import { type FilterGroupSpec, passesFilters } from './filters';

const input = { headers: { 'x-env': 'prod' }, body: { action: 'opened', labels: [{ name: 'bug' }] } };
const group = (logic: 'AND' | 'OR', conditions: FilterGroupSpec['conditions'], isEnabled = true): FilterGroupSpec => ({ logic, conditions, isEnabled });

describe('passesFilters', () => {
  it('passes everything without groups', () => expect(passesFilters([], input)).toBe(true));
  it('ORs groups and applies AND/OR inside a group', () => {
    const and = group('AND', [{ field: 'body.action', operator: 'eq', value: 'opened' }, { field: 'header.X-ENV', operator: 'eq', value: 'dev' }]);
    const or = group('OR', [{ field: 'body.action', operator: 'eq', value: 'closed' }, { field: 'body.labels.0.name', operator: 'eq', value: 'bug' }]);
    expect(passesFilters([and], input)).toBe(false);
    expect(passesFilters([or], input)).toBe(true);
    expect(passesFilters([and, or], input)).toBe(true);
  });
  it('ignores disabled groups', () => {
    const failing = group('AND', [{ field: 'body.action', operator: 'eq', value: 'closed' }]);
    expect(passesFilters([failing], input)).toBe(false);
    expect(passesFilters([{ ...failing, isEnabled: false }], input)).toBe(true);
  });
});
