import { deriveIdempotencyKey } from './idempotency';

describe('deriveIdempotencyKey', () => {
  it('prefers X-Idempotency-Key, then the provider delivery id', () => {
    expect(deriveIdempotencyKey('payments_a', { 'x-idempotency-key': ' k1 ' }, { id: 'evt_1' })).toBe('k1');
    expect(deriveIdempotencyKey(null, { 'x-codehosta-delivery': 'd-1' }, {})).toBe('d-1');
    expect(deriveIdempotencyKey('payments_a', {}, { id: 'evt_1' })).toBe('evt_1');
    expect(deriveIdempotencyKey('chat_a', {}, { event_id: 'Ev1' })).toBe('Ev1');
    expect(deriveIdempotencyKey('tracker_b', {}, { webhookId: 'wh1' })).toBe('wh1');
  });
  it('reads payload ids only for the bound provider, and is null without a key', () => {
    expect(deriveIdempotencyKey(null, {}, { id: 'evt_1', event_id: 'x' })).toBeNull();
    expect(deriveIdempotencyKey('chat_a', { 'x-idempotency-key': '' }, {})).toBeNull();
  });
  it('refuses over-long keys with a 400', () => {
    expect(() => deriveIdempotencyKey(null, { 'x-idempotency-key': 'k'.repeat(256) }, {})).toThrow(expect.objectContaining({ status: 400 }));
  });
  it('refuses a key holding a NUL character (PostgreSQL text cannot) with a 400', () => {
    expect(() => deriveIdempotencyKey('payments_a', {}, { id: 'evt\u00001' })).toThrow(expect.objectContaining({ status: 400, code: 'invalid_idempotency_key' }));
  });
});
