import { untilUsable } from './ensure-search-attributes';

/** A frontend whose caches learn the new attributes after `refusals` queries. */
function frontend(refusals: number) {
  const queries: string[] = [];
  return {
    queries,
    countWorkflowExecutions: async (req: { namespace: string; query: string }) => {
      queries.push(req.query);
      if (queries.length <= refusals) throw new Error('3 INVALID_ARGUMENT: invalid query: unknown search attribute RelayEventId');
      return { count: 0 };
    },
  };
}

describe('untilUsable (attributes just added, before a server cache refresh)', () => {
  it('waits until a query naming every attribute is accepted', async () => {
    const service = frontend(2);
    await untilUsable(service, 'default', ['RelayEventId', 'RelayProjectId'], 10_000);
    expect(service.queries).toEqual(Array(3).fill("RelayEventId = 'relay-probe' AND RelayProjectId = 'relay-probe'"));
  });

  it('gives up past its deadline, naming the attributes and the namespace', async () => {
    await expect(untilUsable(frontend(Infinity), 'relay', ['RelayEventId'], 300)).rejects.toThrow(/RelayEventId were added to namespace relay, but the Temporal frontend still refuses them/);
  });
});
