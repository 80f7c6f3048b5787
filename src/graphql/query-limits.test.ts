import { getIntrospectionQuery, parse } from 'graphql';
import { loadConfig } from '../config/config';
import { checkQuery, measureDocument, queryLimitsFrom } from './query-limits';
import { buildRelaySchema } from './schema';

describe('GraphQL query measure', () => {
  it('lets the standard introspection query through the default limits', async () => {
    const schema = await buildRelaySchema();
    const checked = checkQuery(schema, getIntrospectionQuery(), {}, queryLimitsFrom(loadConfig({})));
    expect(checked.ok).toBe(true);
  });

  it('multiplies nested pages and counts a fragment once per spread without re-walking it', async () => {
    const schema = await buildRelaySchema();
    const doc = parse('{ events(limit: 10) { data { ...f ...f } } } fragment f on Event { id }');
    expect(measureDocument(schema, doc)).toEqual({ depth: 3, aliases: 0, cost: 1 + 10 * (1 + 2) });
    // 30 levels of fragments that each spread the next one twice: 2^30 leaves, measured in linear time.
    const chain = Array.from({ length: 30 }, (_, i) => `fragment f${i} on Query { ...f${i + 1} ...f${i + 1} }`).join(' ');
    const exploding = parse(`{ ...f0 } ${chain} fragment f30 on Query { health }`);
    expect(measureDocument(schema, exploding).cost).toBe(2 ** 30);
  });
});
