import { forwardNotice, NOTICE_LIMIT_BYTES, parseForwardNotice } from './cli-forward-notice';
import type { CliForwardView } from './cli-tunnel';

const destinationId = '01900000-0000-7000-8000-0000000000d1';
const forward: CliForwardView = {
  id: '01900000-0000-7000-8000-0000000000f1',
  eventId: '01900000-0000-7000-8000-0000000000e1',
  deliveryId: '01900000-0000-7000-8000-0000000000a1',
  attemptNumber: 1,
  eventType: 'order',
  sourceSlug: 'shop',
  receivedAt: '2026-11-24T13:00:00.000Z',
  method: 'POST',
  headers: { 'content-type': 'application/json', 'X-Relay-Signature': 'sha256=abc' },
  // Odd spacing, a big number and non-ASCII text: the body must come out byte for byte.
  body: '{ "n":  12345678901234567890, "note": "héllo 🎉" }',
  delayMs: 0,
};

describe('forward notices', () => {
  it('carries a fresh forward whole, and gives it back exactly', () => {
    const notice = forwardNotice(destinationId, forward)!;
    expect(notice.startsWith(`${destinationId} ${forward.id} `)).toBe(true);
    const parsed = parseForwardNotice(notice)!;
    expect(parsed).toEqual({ destinationId, forwardId: forward.id, forward });
    expect(Buffer.from(parsed.forward!.body).equals(Buffer.from(forward.body))).toBe(true);
  });

  it('gives no notice for a forward too big for a notification (it is then announced by id and read)', () => {
    const big = { ...forward, body: JSON.stringify({ pad: 'é'.repeat(4000) }) };
    expect(Buffer.byteLength(JSON.stringify(big))).toBeGreaterThan(NOTICE_LIMIT_BYTES);
    expect(forwardNotice(destinationId, big)).toBeNull();
    const fits = { ...forward, body: JSON.stringify({ pad: 'x'.repeat(7500) }) };
    expect(Buffer.byteLength(forwardNotice(destinationId, fits)!)).toBeLessThanOrEqual(NOTICE_LIMIT_BYTES);
  });

  it('reads an ids-only notice (a retried activity, a big forward, an older worker) as "read it first"', () => {
    expect(parseForwardNotice(`${destinationId} ${forward.id}`)).toEqual({ destinationId, forwardId: forward.id, forward: null });
  });

  it('ignores what is not a notice, and an inline forward that is not the one named', () => {
    expect(parseForwardNotice('')).toBeNull();
    expect(parseForwardNotice(`${destinationId} not-a-uuid`)).toBeNull();
    expect(parseForwardNotice(`nope ${forward.id}`)).toBeNull();
    const other = { ...forward, id: '01900000-0000-7000-8000-0000000000f2' };
    expect(parseForwardNotice(`${destinationId} ${forward.id} ${JSON.stringify(other)}`)!.forward).toBeNull();
    expect(parseForwardNotice(`${destinationId} ${forward.id} {broken`)!.forward).toBeNull();
  });
});
