import { z } from 'zod';
import { ValidationError } from './errors';
import { parseInput } from './validation';

function refusedFields(run: () => unknown): Array<{ field: string; message: string }> {
  try {
    run();
  } catch (err) {
    expect(err).toBeInstanceOf(ValidationError);
    return (err as ValidationError).details!.fields as Array<{ field: string; message: string }>;
  }
  throw new Error('accepted');
}

describe('parseInput: a body or input object takes only the fields its schema defines', () => {
  const condition = z.object({ field: z.string(), value: z.string().optional() });
  const schema = z.object({
    name: z.string().optional(),
    retry: z.object({ max: z.number() }).nullable().optional(),
    conditions: z.array(condition).default([]),
    metadata: z.record(z.string(), z.unknown()).optional(),
    target: z.union([z.object({ kind: z.literal('url'), url: z.string() }), z.object({ kind: z.literal('channel'), channel: z.string() })]).optional(),
    size: z.string().pipe(z.coerce.number()).optional(),
  });

  it('refuses unknown fields at any depth, naming each', () => {
    const fields = refusedFields(() =>
      parseInput(schema, { name: 'a', id: 'x', retry: { max: 1, min: 0 }, conditions: [{ field: 'a' }, { field: 'b', op: 'eq' }] }),
    );
    expect(fields.map((f) => f.field)).toEqual(['id', 'retry.min', 'conditions.1.op']);
  });

  it('says which fields are read-only when told what the answer holds', () => {
    expect(refusedFields(() => parseInput(schema, { circuit: {}, nmae: 'a' }, 'body', { answered: ['circuit', 'name'] }))).toEqual([
      { field: 'circuit', message: expect.stringMatching(/read-only/) },
      { field: 'nmae', message: expect.stringMatching(/not a field/) },
    ]);
  });

  it('accepts any key of a record, the keys of the union option the value matches, and the hint', () => {
    expect(parseInput(schema, { metadata: { anything: { deep: 1 } }, target: { kind: 'channel', channel: 'c' }, size: '3', project_id: 'p' }, 'body', { hint: 'project_id' })).toMatchObject({
      size: 3,
    });
    expect(refusedFields(() => parseInput(schema, { target: { kind: 'channel', channel: 'c', url: 'u' } })).map((f) => f.field)).toEqual(['target.url']);
  });

  it('leaves query strings and arguments alone (only bodies and GraphQL input objects are strict)', () => {
    expect(parseInput(schema, { name: 'a', other: 1 }, 'query')).toEqual({ name: 'a', conditions: [] });
    expect(parseInput(schema, { name: 'a', other: 1 }, 'arguments')).toEqual({ name: 'a', conditions: [] });
  });

  it('reports invalid values first, as before', () => {
    expect(refusedFields(() => parseInput(schema, { name: 3, extra: true }))).toEqual([{ field: 'name', message: expect.any(String) }]);
  });
});
