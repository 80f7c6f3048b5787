import fs from 'node:fs';
import path from 'node:path';
import { printSchema } from 'graphql';
import { buildRelaySchema } from '../../src/graphql/schema';

/** CI fails when the checked-in SDL drifts from the code: run `npm run schema:emit` and commit schema/schema.graphql. */
describe('schema/schema.graphql', () => {
  it('equals the SDL printed from the resolvers', async () => {
    const checkedIn = fs.readFileSync(path.resolve(__dirname, '..', '..', 'schema', 'schema.graphql'), 'utf8');
    const fromCode = printSchema(await buildRelaySchema()) + '\n';
    if (checkedIn !== fromCode) {
      throw new Error('schema/schema.graphql is out of date: run `npm run schema:emit` and commit it.');
    }
  });

  it('offers the operations of /v1 on events and deliveries, and the live subscriptions', async () => {
    const schema = await buildRelaySchema();
    const names = (type: 'Query' | 'Mutation' | 'Subscription') => Object.keys(schema.getType(type)!.toConfig() && (schema.getType(type) as never as { getFields(): object }).getFields());
    expect(names('Query')).toEqual(expect.arrayContaining(['events', 'event', 'deliveries', 'delivery', 'deliveryAttempts', 'deadLetters']));
    expect(names('Mutation')).toEqual(expect.arrayContaining(['replayEvent', 'cancelDelivery', 'cancelDeliveryAttempt', 'replayDeadLetters']));
    expect(names('Subscription').sort()).toEqual(['cliForwards', 'deliveryAttemptUpdated', 'eventReceived']);
  });
});
