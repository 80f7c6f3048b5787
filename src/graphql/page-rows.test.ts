import { type OperationDefinitionNode, parse } from 'graphql';
import { countPageRows } from './page-rows';
import { buildRelaySchema } from './schema';

describe('page rows of a GraphQL result', () => {
  it('counts the items of every page, under aliases and fragments, and nothing else', async () => {
    const schema = await buildRelaySchema();
    const doc = parse(`
      query Page { me { id } a: events(limit: 200) { rows: data { id deliveries { id } payload } } ...more }
      fragment more on Query { ...more2 destinations { data { id } } }
      fragment more2 on Query { destinations { data { name } } b: templates { data { id } } }
    `);
    const data = {
      me: { id: 'u' },
      // An event's deliveries are not a page, and JSON inside a payload is not a row.
      a: { rows: [{ id: '1', deliveries: [{ id: 'd' }, { id: 'e' }], payload: { list: [{}, {}, {}] } }, { id: '2', deliveries: [], payload: [1, 2] }] },
      destinations: { data: [{ id: 'x', name: 'x' }, { id: 'y', name: 'y' }, { id: 'z', name: 'z' }] },
      b: { data: [] },
    };
    const operation = doc.definitions[0] as OperationDefinitionNode;
    expect(countPageRows(doc, operation, schema.getQueryType(), data)).toBe(2 + 3);
    expect(countPageRows(doc, operation, schema.getQueryType(), null)).toBe(0);
  });
});
