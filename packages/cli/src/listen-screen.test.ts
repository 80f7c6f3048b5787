import { PassThrough } from 'node:stream';
import { type ForwardLine, formatForwardJson, formatForwardLine, formatMissed, ListenScreen, wantsColor } from './listen-screen';

const line = (result: ForwardLine['result'], extra: Partial<ForwardLine> = {}): ForwardLine => ({
  at: new Date(2026, 10, 23, 14, 2, 11),
  forward: { eventId: '0190d6a0-aaaa', eventType: 'push', sourceSlug: 'github', method: 'POST', attemptNumber: 1 },
  path: '/webhooks',
  result,
  ...extra,
});

describe('the listen screen', () => {
  it('prints time, event type, source, POST <path>, status, latency and event id on one plain line', () => {
    const text = formatForwardLine(line({ statusCode: 200, latencyMs: 12, error: null }), { color: false });
    expect(text).toMatch(/^14:02:11 {2}push +github +POST \/webhooks +→ {2}200 {2}12 ms +0190d6a0-aaaa$/);
    expect(text).not.toContain('\x1b[');
  });

  it('colours status by class only when asked', () => {
    expect(formatForwardLine(line({ statusCode: 200, latencyMs: 1, error: null }), { color: true })).toContain('\x1b[32m200');
    expect(formatForwardLine(line({ statusCode: 404, latencyMs: 1, error: null }), { color: true })).toContain('\x1b[33m404');
    expect(formatForwardLine(line({ statusCode: 503, latencyMs: 1, error: null }), { color: true })).toContain('\x1b[31m503');
  });

  it('says when the local server did not answer, when paused, and marks replays and retries', () => {
    expect(formatForwardLine(line({ statusCode: null, latencyMs: 3, error: 'connection error: ECONNREFUSED' }), { color: false })).toContain('no response: connection error: ECONNREFUSED');
    const skipped = formatForwardLine(line({ statusCode: null, latencyMs: 0, error: 'paused', skipped: true }), { color: false });
    expect(skipped).toContain('skipped (paused)');
    expect(skipped).not.toContain(' ms');
    const replay = formatForwardLine({ ...line({ statusCode: 200, latencyMs: 1, error: null }, { replay: true }), forward: { ...line({ statusCode: 200, latencyMs: 1, error: null }).forward, attemptNumber: 2 } }, { color: false });
    expect(replay).toMatch(/\(replay, attempt 2\)$/);
  });

  it('writes one JSON object per line with --output json', () => {
    expect(JSON.parse(formatForwardJson(line({ statusCode: 201, latencyMs: 7, error: null })))).toEqual({
      type: 'forward', time: expect.any(String), event_id: '0190d6a0-aaaa', event_type: 'push', source: 'github', method: 'POST', path: '/webhooks',
      attempt: 1, status: 201, latency_ms: 7, error: null, skipped: false, replay: false,
    });
    const out = new PassThrough();
    const screen = new ListenScreen('json', out);
    screen.notice('paused');
    screen.forward(line({ statusCode: 200, latencyMs: 1, error: null }));
    const lines = out.read().toString().trim().split('\n').map((l: string) => JSON.parse(l));
    expect(lines.map((l: { type: string }) => l.type)).toEqual(['notice', 'forward']);
  });

  it('says how many events arrived while no CLI was listening, since when, and what happens to them', () => {
    const now = new Date(2026, 10, 24, 9, 0, 0);
    const missed = { eventIds: ['a', 'b'], since: new Date(2026, 10, 24, 8, 1, 2), limited: false, then: 'press f' as const };
    expect(formatMissed(missed, now)).toBe('2 events arrived while no CLI was listening (since 08:01:02): press f to forward them');
    expect(formatMissed({ ...missed, eventIds: ['a'], since: new Date(2026, 10, 23, 17, 0, 0) }, now)).toBe(
      '1 event arrived while no CLI was listening (since 2026-11-23 17:00:00): press f to forward it',
    );
    expect(formatMissed({ ...missed, limited: true, then: 'forwarding' }, now)).toBe('2 events arrived while no CLI was listening (since 08:01:02, the oldest ones: more may have arrived)');
    expect(formatMissed({ ...missed, then: 'no keyboard' }, now)).toMatch(/: not forwarded \(no keyboard: start listen with --forward-missed/);

    const out = new PassThrough();
    new ListenScreen('json', out).missed(missed);
    expect(JSON.parse(out.read().toString())).toEqual({
      type: 'missed', time: expect.any(String), count: 2, since: missed.since.toISOString(), limited: false, action: 'offered', event_ids: ['a', 'b'],
    });
  });

  it('uses colour on a terminal unless NO_COLOR is set or TERM is dumb, never when piped', () => {
    expect(wantsColor({ isTTY: true }, {})).toBe(true);
    expect(wantsColor({ isTTY: false }, {})).toBe(false);
    expect(wantsColor({}, {})).toBe(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '1' })).toBe(false);
    expect(wantsColor({ isTTY: true }, { NO_COLOR: '' })).toBe(true);
    expect(wantsColor({ isTTY: true }, { TERM: 'dumb' })).toBe(false);
  });
});
