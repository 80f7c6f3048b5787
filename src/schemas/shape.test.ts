import { shapeToJsonSchema } from './json-schema';
import { acceptDrift, childPath, countNodes, flattenShape, learn, observe, parsePath, type ShapeNode, shapeHash } from './shape';

/** Learns payloads in order; returns the shape and each event's drift. */
function learnAll(payloads: unknown[], detectFrom = 0, maxPaths?: number) {
  let root: ShapeNode | null = null;
  let paths = 0;
  const drifts = payloads.map((payload, k) => {
    const learned = learn(root, observe(payload), 1_000 + k, { detect: k >= detectFrom, paths, maxPaths });
    root = learned.root;
    paths = learned.result.paths;
    return learned.result;
  });
  return { root: root!, drifts, paths };
}

const order = (id: number, extra: Record<string, unknown> = {}) => ({ id, total: 12.5, customer: { email: 'a@example.test', vip: false }, items: [{ sku: 'A', qty: 1 }], ...extra });

describe('learning a shape', () => {
  it('counts each path with its types, first and last seen; under arrays per element', () => {
    const { root, paths } = learnAll([order(1), order(2, { note: null }), { ...order(3), items: [{ sku: 'B', qty: 2 }, { sku: 'C', qty: 3, gift: true }] }]);
    expect(paths).toBe(countNodes(root));
    const rows = Object.fromEntries(flattenShape(root).map((r) => [r.path, r]));
    expect(rows.$).toMatchObject({ count: 3, types: { object: 3 }, required: true });
    expect(rows.id).toMatchObject({ count: 3, types: { integer: 3 }, frequency: 1, required: true, first_seen_at: new Date(1000).toISOString(), last_seen_at: new Date(1002).toISOString() });
    expect(rows.note).toMatchObject({ count: 1, types: { null: 1 }, required: false });
    expect(rows.note.frequency).toBeCloseTo(1 / 3);
    expect(rows['items[]']).toMatchObject({ count: 4, types: { object: 4 } });
    expect(rows['items[].gift']).toMatchObject({ count: 1, frequency: 0.25, required: false });
    expect(rows['items[].sku']).toMatchObject({ count: 4, required: true });
  });

  it('writes JSON Schema with required properties, merged number types and open objects', () => {
    const { root } = learnAll([order(1), order(2, { total: 3 }), order(3, { id: 'x-3' }), { ...order(4), items: [] }]);
    expect(shapeToJsonSchema(root, { title: 'order.paid' })).toEqual({
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      title: 'order.paid',
      type: 'object',
      properties: {
        id: { type: ['integer', 'string'] },
        total: { type: 'number' },
        customer: { type: 'object', properties: { email: { type: 'string' }, vip: { type: 'boolean' } }, required: ['email', 'vip'] },
        items: { type: 'array', items: { type: 'object', properties: { sku: { type: 'string' }, qty: { type: 'integer' } }, required: ['sku', 'qty'] } },
      },
      required: ['id', 'total', 'customer', 'items'],
    });
  });

  it('bounds one event’s walk: depth, values and array elements', () => {
    let deep: unknown = 'leaf';
    for (let k = 0; k < 30; k++) deep = { next: deep };
    const obs = observe(deep, { maxDepth: 3, maxEventNodes: 100, arraySample: 2 });
    expect(flattenShape(learn(null, obs, 0, { detect: false, paths: 0 }).root).map((r) => r.path)).toEqual(['$', 'next', 'next.next', 'next.next.next']);
    const wide = Object.fromEntries(Array.from({ length: 500 }, (_, k) => [`k${k}`, k]));
    expect(observe(wide, { maxDepth: 5, maxEventNodes: 50, arraySample: 2 }).props!.size).toBeLessThan(50);
    expect(observe({ list: [1, 2, 3, 'four'] }, { maxDepth: 5, maxEventNodes: 50, arraySample: 3 }).props!.get('list')!.items).toEqual({ count: 3, types: { integer: 3 } });
  });

  it('keeps at most maxPaths paths, however varied the payloads; what does not fit is not learned nor reported', () => {
    const payloads = Array.from({ length: 50 }, (_, k) => ({ [`field${k}`]: { a: k, b: 'x' } }));
    const { root, drifts, paths } = learnAll(payloads, 10, 40);
    expect(paths).toBe(40);
    expect(countNodes(root)).toBe(40);
    expect(drifts.at(-1)).toMatchObject({ truncated: true, drift: { added: [], removed: [], retyped: [] } });
  });
});

describe('drift', () => {
  const warm = Array.from({ length: 5 }, (_, k) => order(k));

  it('an event of the learned shape changes nothing', () => {
    expect(learnAll([...warm, order(9)], 5).drifts[5].drift).toEqual({ added: [], removed: [], retyped: [] });
  });

  it('a path present in every event so far, missing: removed (the topmost only)', () => {
    const { customer: _, ...noCustomer } = order(9);
    expect(learnAll([...warm, noCustomer], 5).drifts[5].drift).toEqual({ added: [], removed: ['customer'], retyped: [] });
    const { vip: __, ...customer } = order(9).customer;
    expect(learnAll([...warm, order(9, { customer })], 5).drifts[5].drift.removed).toEqual(['customer.vip']);
  });

  it('an optional path missing is no change; nor is an empty array', () => {
    const mixed = [...warm, order(5, { coupon: 'X' })];
    expect(learnAll([...mixed, order(9)], 6).drifts[6].drift).toEqual({ added: [], removed: [], retyped: [] });
    expect(learnAll([...warm, order(9, { items: [] })], 5).drifts[5].drift).toEqual({ added: [], removed: [], retyped: [] });
  });

  it('under arrays, per element: one element without a field every element had is a removal', () => {
    expect(learnAll([...warm, order(9, { items: [{ sku: 'A', qty: 1 }, { sku: 'B' }] })], 5).drifts[5].drift.removed).toEqual(['items[].qty']);
  });

  it('a type never seen at a path: retyped; integer and number are one kind; null-only paths are still learning', () => {
    expect(learnAll([...warm, order(9, { id: '9' })], 5).drifts[5].drift.retyped).toEqual([{ path: 'id', from: ['integer'], to: ['string'] }]);
    expect(learnAll([...warm, order(9, { total: 12 })], 5).drifts[5].drift.retyped).toEqual([]);
    expect(learnAll([...warm, order(9, { customer: null })], 5).drifts[5].drift).toEqual({ added: [], removed: [], retyped: [{ path: 'customer', from: ['object'], to: ['null'] }] });
    const nullable = warm.map((p) => ({ ...p, closed_at: null }));
    expect(learnAll([...nullable, order(9, { closed_at: '2026-11-27T10:00:00Z' })], 5).drifts[5].drift.retyped).toEqual([]);
  });

  it('new paths: added (topmost), learned at once so they are reported once', () => {
    const { drifts } = learnAll([...warm, order(9, { shipping: { city: 'Lyon' } }), order(10, { shipping: { city: 'Paris' } })], 5);
    expect(drifts[5].drift).toEqual({ added: ['shipping'], removed: [], retyped: [] });
    expect(drifts[6].drift).toEqual({ added: [], removed: [], retyped: [] });
  });

  it('a change is reported once: the next event with it is the learned shape', () => {
    const { drifts } = learnAll([...warm, order(9, { id: 'a' }), order(10, { id: 'b' })], 5);
    expect(drifts[5].drift.retyped).toHaveLength(1);
    expect(drifts[6].drift.retyped).toEqual([]);
  });

  it('accepting a change makes the new shape the expected one: the old shape again is a change', () => {
    const { root } = learnAll([...warm, order(9, { id: 'a' })], 5);
    acceptDrift(root, { removed: [], retyped: [{ path: 'id', from: ['integer'], to: ['string'] }] });
    expect(learn(root, observe(order(10)), 2_000, { detect: true, paths: countNodes(root) }).result.drift.retyped).toEqual([{ path: 'id', from: ['string'], to: ['integer'] }]);

    const { customer: _, ...noCustomer } = order(9);
    const removed = learnAll([...warm, noCustomer], 5).root;
    acceptDrift(removed, { removed: ['customer'], retyped: [] });
    expect(learn(removed, observe(order(10)), 2_000, { detect: true, paths: countNodes(removed) }).result.drift.added).toEqual(['customer']);
  });

  it('while not detecting (warm-up), changes are learned silently', () => {
    expect(learnAll([...warm, order(9, { id: 'x' })], 99).drifts.every((d) => d.drift.retyped.length === 0)).toBe(true);
  });
});

describe('paths and shapes', () => {
  it('writes awkward keys quoted, and reads them back', () => {
    const path = childPath(childPath(childPath('', 'a'), 'x.y'), 'b');
    expect(path).toBe('a["x.y"].b');
    expect(parsePath(`${path}[].c`)).toEqual(['a', 'x.y', 'b', null, 'c']);
    expect(parsePath(childPath('', 'say "hi"]'))).toEqual(['say "hi"]']);
    expect(childPath('reactions', '+1')).toBe('reactions.+1');
  });

  it('one hash per set of paths and types, whatever the values and key order', () => {
    expect(shapeHash(observe({ a: 1, b: 'x' }))).toBe(shapeHash(observe({ b: 'y', a: 2 })));
    expect(shapeHash(observe({ a: 1, b: 'x' }))).not.toBe(shapeHash(observe({ a: '1', b: 'x' })));
    expect(shapeHash(observe({ a: 1 }))).not.toBe(shapeHash(observe({ a: 1, b: null })));
  });
});
