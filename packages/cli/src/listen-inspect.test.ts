import { DETAIL_BODY_BYTES, detailJson, forwardDetail, ForwardHistory, formatDetail } from './listen-inspect';

const request = { url: 'http://localhost:4000/hooks', headers: { 'content-type': 'application/json', 'x-a': '1' }, body: '{"a":1}' };
const answered = { forwardId: 'f', statusCode: 201, responseHeaders: { 'x-local': 'yes' }, responseBody: 'é'.repeat(3000), latencyMs: 3, error: null };

describe('listen inspect', () => {
  it('keeps the first 4 KiB of each body, cut on a character boundary', () => {
    const detail = forwardDetail(request, answered);
    expect(detail.request.body).toEqual({ text: '{"a":1}', truncated: false });
    expect(detail.response!.body!.truncated).toBe(true);
    expect(Buffer.byteLength(detail.response!.body!.text)).toBe(DETAIL_BODY_BYTES);
    expect(detailJson(detail)).toEqual({
      request: { method: 'POST', url: request.url, headers: request.headers, body: '{"a":1}', body_truncated: false },
      response: { status: 201, headers: { 'x-local': 'yes' }, body: detail.response!.body!.text, body_truncated: true, error: null },
    });
  });

  it('formats request and response as indented lines, and says when nothing was sent or answered', () => {
    const lines = formatDetail('event e1', forwardDetail(request, { ...answered, responseBody: 'ok' }));
    expect(lines).toEqual([
      '── event e1 ──',
      '  request  POST http://localhost:4000/hooks',
      '    content-type: application/json',
      '    x-a: 1',
      '',
      '    {"a":1}',
      '  response  201',
      '    x-local: yes',
      '',
      '    ok',
      '──',
    ]);
    const refused = forwardDetail(request, { ...answered, statusCode: null, responseHeaders: null, responseBody: null, error: 'connection error: ECONNREFUSED' });
    expect(formatDetail('e', refused)).toContain('  response  none: connection error: ECONNREFUSED');
    expect(detailJson(forwardDetail(request, { ...answered, skipped: true })).response).toBeNull();
  });

  it('selects lines with ↑/↓ from the newest, stopping at either end', () => {
    const history = new ForwardHistory<string>(3);
    expect(history.move(-1)).toBeUndefined();
    expect(history.current).toBeUndefined();
    history.add('a');
    history.add('b');
    expect(history.current).toBe('b');
    expect(history.move(-1)).toEqual({ entry: 'a', index: 1, count: 2 });
    expect(history.move(-1)).toEqual({ entry: 'a', index: 1, count: 2 });
    history.add('c');
    expect(history.current).toBe('a'); // a chosen line stays chosen
    history.add('d'); // 'a' drops out (limit 3): the selection moves to the oldest kept
    expect(history.current).toBe('b');
    expect(history.move(5)).toEqual({ entry: 'd', index: 3, count: 3 });
  });
});
