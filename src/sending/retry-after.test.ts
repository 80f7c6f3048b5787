import {
  clampRetryAfter,
  DEFAULT_RETRY_AFTER_MS,
  MAX_RETRY_AFTER_MS,
  MIN_RETRY_AFTER_MS,
  parseRateLimit,
  parseRetryAfterHeader,
  receiverSignals,
  webhookRetryAfterMs,
} from './retry-after';

const NOW = Date.parse('2026-01-01T00:00:00Z');

describe('parseRetryAfterHeader', () => {
  it.each([
    ['120', 120_000],
    ['0', 0],
    ['1.5', 1500],
    [' 7 ', 7000],
    ['Thu, 01 Jan 2026 00:00:30 GMT', 30_000],
    ['Wed, 31 Dec 2025 23:00:00 GMT', 0],
    ['soon', null],
    ['-5', null],
    ['', null],
    [undefined, null],
  ])('%p → %p', (value, expected) => {
    expect(parseRetryAfterHeader(value, NOW)).toBe(expected);
  });
});

describe('parseRateLimit (per platform)', () => {
  it('chat_b: JSON retry_after in fractional seconds and the global flag', () => {
    expect(parseRateLimit({ 'retry-after': '3' }, { message: 'You are being rate limited.', retry_after: 2.345, global: true }, NOW)).toEqual({
      retryAfterMs: 2345,
      global: true,
    });
    expect(parseRateLimit({}, { retry_after: 1.5, global: false }, NOW)).toEqual({ retryAfterMs: 1500, global: false });
  });

  it('chat_b: global from the X-RateLimit-Global / X-RateLimit-Scope headers', () => {
    expect(parseRateLimit({ 'retry-after': '4', 'x-ratelimit-global': 'true' }, null, NOW)).toEqual({ retryAfterMs: 4000, global: true });
    expect(parseRateLimit({ 'x-ratelimit-reset-after': '1.25', 'x-ratelimit-scope': 'global' }, null, NOW)).toEqual({
      retryAfterMs: 1250,
      global: true,
    });
    expect(parseRateLimit({ 'retry-after': '4', 'x-ratelimit-scope': 'user' }, null, NOW).global).toBe(false);
  });

  it('chat_a: the Retry-After header', () => {
    expect(parseRateLimit({ 'retry-after': '30' }, { ok: false, error: 'ratelimited' }, NOW)).toEqual({ retryAfterMs: 30_000, global: false });
  });

  it('chat_c: parameters.retry_after', () => {
    const body = { ok: false, error_code: 429, description: 'Too Many Requests: retry after 17', parameters: { retry_after: 17 } };
    expect(parseRateLimit({}, body, NOW)).toEqual({ retryAfterMs: 17_000, global: false });
  });

  it('falls back to a default when nothing says how long, and caps at one hour', () => {
    expect(parseRateLimit({}, null, NOW).retryAfterMs).toBe(DEFAULT_RETRY_AFTER_MS);
    expect(parseRateLimit({}, { retry_after: 'x' }, NOW).retryAfterMs).toBe(DEFAULT_RETRY_AFTER_MS);
    expect(parseRateLimit({}, { retry_after: -3 }, NOW).retryAfterMs).toBe(DEFAULT_RETRY_AFTER_MS);
    expect(parseRateLimit({ 'retry-after': '999999' }, null, NOW).retryAfterMs).toBe(MAX_RETRY_AFTER_MS);
  });

  it('never asks for less than the floor or more than the ceiling: zero, past, tiny and absurd waits', () => {
    expect(MIN_RETRY_AFTER_MS).toBe(1000);
    expect(MAX_RETRY_AFTER_MS).toBe(3_600_000);
    expect(parseRateLimit({}, { retry_after: 0, global: true }, NOW).retryAfterMs).toBe(MIN_RETRY_AFTER_MS);
    expect(parseRateLimit({}, { retry_after: 0.001 }, NOW).retryAfterMs).toBe(MIN_RETRY_AFTER_MS);
    expect(parseRateLimit({}, { parameters: { retry_after: 0 } }, NOW).retryAfterMs).toBe(MIN_RETRY_AFTER_MS);
    expect(parseRateLimit({ 'retry-after': '0' }, null, NOW).retryAfterMs).toBe(MIN_RETRY_AFTER_MS);
    expect(parseRateLimit({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, null, NOW).retryAfterMs).toBe(MIN_RETRY_AFTER_MS);
    expect(parseRateLimit({ 'x-ratelimit-reset-after': '0.000' }, null, NOW).retryAfterMs).toBe(MIN_RETRY_AFTER_MS);
    expect(parseRateLimit({}, { retry_after: 1e308 }, NOW).retryAfterMs).toBe(MAX_RETRY_AFTER_MS);
    expect(parseRateLimit({}, { retry_after: '1e400' }, NOW).retryAfterMs).toBe(DEFAULT_RETRY_AFTER_MS);
    expect(parseRateLimit({ 'retry-after': 'Fri, 31 Dec 9999 23:59:59 GMT' }, null, NOW).retryAfterMs).toBe(MAX_RETRY_AFTER_MS);
  });

  it('clampRetryAfter: anything that is not a number of milliseconds within the bounds is brought within them', () => {
    expect([0, -5, 1, 999, 1000, 1500, 3_600_000, 3_600_001, Infinity, NaN].map(clampRetryAfter)).toEqual([
      1000, 1000, 1000, 1000, 1000, 1500, 3_600_000, 3_600_000, 3_600_000, 3_600_000,
    ]);
  });
});

describe('webhookRetryAfterMs', () => {
  it('reads Retry-After within one second and one hour; undefined without a readable one', () => {
    expect(webhookRetryAfterMs({ 'retry-after': '60' }, NOW)).toBe(60_000);
    expect(webhookRetryAfterMs({ 'retry-after': '7200' }, NOW)).toBe(3_600_000);
    expect(webhookRetryAfterMs({ 'retry-after': '0' }, NOW)).toBe(1000);
    expect(webhookRetryAfterMs({ 'retry-after': '0.2' }, NOW)).toBe(1000);
    expect(webhookRetryAfterMs({ 'retry-after': 'Wed, 31 Dec 2025 23:00:00 GMT' }, NOW)).toBe(1000);
    expect(webhookRetryAfterMs({ 'retry-after': 'soon' }, NOW)).toBeUndefined();
    expect(webhookRetryAfterMs({}, NOW)).toBeUndefined();
  });
});

describe('receiverSignals', () => {
  it('410 Gone: permanent, and the destination is to be paused', () => {
    expect(receiverSignals(410, {}, NOW)).toEqual({ gone: true, permanent: true });
  });

  it('503 with Retry-After: waited out (unavailable), and a counted retry waits at least as long', () => {
    expect(receiverSignals(503, { 'retry-after': '30' }, NOW)).toEqual({ retryAfterMs: 30_000, unavailable: { retryAfterMs: 30_000 } });
    expect(receiverSignals(503, { 'retry-after': 'Thu, 01 Jan 2026 02:00:00 GMT' }, NOW)).toEqual({ retryAfterMs: 3_600_000, unavailable: { retryAfterMs: 3_600_000 } });
    expect(receiverSignals(503, { 'retry-after': '0' }, NOW)).toEqual({ retryAfterMs: 1000, unavailable: { retryAfterMs: 1000 } });
    expect(receiverSignals(503, { 'retry-after': 'Wed, 31 Dec 2025 23:59:59 GMT' }, NOW)).toEqual({ retryAfterMs: 1000, unavailable: { retryAfterMs: 1000 } });
  });

  it('a 429 only stretches the next retry; a 503 without Retry-After and other statuses say nothing', () => {
    expect(receiverSignals(429, { 'retry-after': '5' }, NOW)).toEqual({ retryAfterMs: 5000 });
    expect(receiverSignals(503, {}, NOW)).toEqual({});
    expect(receiverSignals(500, { 'retry-after': '5' }, NOW)).toEqual({});
    expect(receiverSignals(404, {}, NOW)).toEqual({});
  });
});
