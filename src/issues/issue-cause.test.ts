import { notSent } from '../sending/send-result';
import { issueCause } from './issue-cause';

const answered = (statusCode: number, ok = false) => ({ ok, statusCode });

describe('issueCause', () => {
  it('groups answers by HTTP status class; a 2xx saying it failed is the platform’s error', () => {
    expect([301, 404, 410, 429, 500, 503].map((code) => issueCause(answered(code)))).toEqual(['http_3xx', 'http_4xx', 'http_4xx', 'http_4xx', 'http_5xx', 'http_5xx']);
    expect(issueCause(answered(200))).toBe('platform_error');
  });

  it('names why no answer came or nothing was sent', () => {
    expect(issueCause({ ok: false, statusCode: null, failure: 'timeout' })).toBe('timeout');
    expect(issueCause({ ok: false, statusCode: null, failure: 'connection_refused' })).toBe('connection_refused');
    expect(issueCause(notSent({}, 'boom', { permanent: true, failure: 'transform_error' }))).toBe('transform_error');
    expect(issueCause(notSent({}, 'the destination has no webhook_url', { permanent: true }))).toBe('configuration');
  });

  it('is null for what is not a failure', () => {
    expect(issueCause(answered(200, true))).toBeNull();
    expect(issueCause({ ok: false, statusCode: null, skipped: true })).toBeNull();
    expect(issueCause({ ok: false, statusCode: 429, rateLimited: { retryAfterMs: 1, global: false } })).toBeNull();
  });
});
