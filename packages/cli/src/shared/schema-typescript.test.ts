import { typeName, typeOf, typescriptModule } from './schema-typescript';

describe('TypeScript from inferred JSON Schemas', () => {
  it('maps the four keywords: types, properties (optional unless required), items', () => {
    expect(typeOf({ type: 'object', properties: { id: { type: 'integer' }, 'x-y': { type: ['null', 'string'] }, tags: { type: 'array', items: { type: 'string' } } }, required: ['id'] })).toBe(
      '{\n  id: number;\n  "x-y"?: null | string;\n  tags?: Array<string>;\n}',
    );
    expect(typeOf({ type: ['null', 'object'], properties: { a: { type: 'boolean' } }, required: ['a'] })).toBe('null | ({\n  a: boolean;\n})');
    expect(typeOf({ type: 'array', items: {} })).toBe('Array<unknown>');
    expect(typeOf({ type: 'object' })).toBe('Record<string, unknown>');
    expect(typeOf({ type: ['integer', 'number'] })).toBe('number');
    expect(typeOf({})).toBe('unknown');
  });

  it('names types after event types', () => {
    expect(['pull_request', 'order.paid', '', '2fa.enabled', 'ping'].map((t) => typeName(t))).toEqual(['PullRequestEvent', 'OrderPaidEvent', 'UntypedEvent', 'T2faEnabledEvent', 'PingEvent']);
  });

  it('writes a module: one type per event type, a map by type and the union; names never collide', () => {
    const text = typescriptModule(
      { name: 'Shop', slug: 'shop' },
      [
        { eventType: 'order.paid', jsonSchema: { type: 'object', properties: { id: { type: 'string' } }, required: ['id'], description: 'Inferred from 3 events.' } },
        { eventType: 'order_paid', jsonSchema: { type: 'array', items: { type: 'integer' } } },
      ],
      '2026-11-27T10:00:00.000Z',
    );
    expect(text).toContain('/** Inferred from 3 events. */\nexport interface OrderPaidEvent {\n  id: string;\n}');
    expect(text).toContain('export type OrderPaidEvent2 = Array<number>;');
    expect(text).toContain('export interface ShopEvents {\n  "order.paid": OrderPaidEvent;\n  "order_paid": OrderPaidEvent2;\n}');
    expect(text).toContain('export type ShopEvent = ShopEvents[keyof ShopEvents];');
  });
});
