import { cliAnswerToResult, forwardHeaders, PAUSED_IN_CLI } from './cli-forwarder';

describe('forwardHeaders', () => {
  const delivery = { 'X-Relay-Event-ID': 'evt', 'X-Relay-Endpoint-ID': 'ep' };

  it('keeps the event’s headers but hop-by-hop ones, host and content-length, and adds the delivery headers', () => {
    const original = {
      'content-type': 'application/json; charset=utf-8',
      'x-github-event': 'push',
      host: 'relay.example',
      'content-length': '12',
      connection: 'keep-alive',
      'transfer-encoding': 'chunked',
      'x-relay-event-id': 'spoofed',
    };
    expect(forwardHeaders(original, delivery, false)).toEqual({
      'content-type': 'application/json; charset=utf-8',
      'x-github-event': 'push',
      'X-Relay-Event-ID': 'evt',
      'X-Relay-Endpoint-ID': 'ep',
    });
  });

  it('says JSON when a transform produced the body or the event had no content type', () => {
    expect(forwardHeaders({ 'content-type': 'application/x-www-form-urlencoded' }, delivery, true)['content-type']).toBe('application/json');
    expect(forwardHeaders({}, delivery, false)['content-type']).toBe('application/json');
  });
});

describe('cliAnswerToResult', () => {
  const answer = { statusCode: 200, responseHeaders: { 'x-a': '1' }, responseBody: 'ok', latencyMs: 42, error: null, skipped: false };

  it('records a 2xx as a success with the CLI’s latency, headers and body', () => {
    expect(cliAnswerToResult(answer, { a: 1 })).toMatchObject({ ok: true, statusCode: 200, responseBody: 'ok', responseHeaders: { 'x-a': '1' }, latencyMs: 42, error: null, payloadSent: { a: 1 } });
  });

  it('truncates the body to 4096 bytes on a character boundary', () => {
    const result = cliAnswerToResult({ ...answer, responseBody: 'é'.repeat(3000) }, null);
    expect(Buffer.byteLength(result.responseBody!)).toBe(4096);
    expect(result.responseBodyTruncated).toBe(true);
  });

  it('makes a 5xx and a failed local request normal (retryable) failures', () => {
    expect(cliAnswerToResult({ ...answer, statusCode: 503 }, null)).toMatchObject({ ok: false, statusCode: 503, error: 'HTTP 503 Service Unavailable' });
    const refused = cliAnswerToResult({ ...answer, statusCode: null, error: 'connect ECONNREFUSED 127.0.0.1:4000' }, null);
    expect(refused).toMatchObject({ ok: false, statusCode: null, error: 'connect ECONNREFUSED 127.0.0.1:4000' });
    expect(refused.permanent).toBeUndefined();
  });

  it('makes a pause a skip (the delivery ends skipped, not failed)', () => {
    expect(cliAnswerToResult({ ...answer, statusCode: null, skipped: true }, null)).toMatchObject({ ok: false, error: PAUSED_IN_CLI, skipped: true });
  });

  it('says nothing to the circuit breaker about a local failure behind the CLI', () => {
    expect(cliAnswerToResult({ ...answer, statusCode: null, error: 'connect ECONNREFUSED' }, null)).toMatchObject({ ok: false, unreachable: false });
  });
});
