import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { isJsonContentType, MAX_JSON_DEPTH, nestsDeeperThan, parseJsonBody, readRawBody } from './json-body';

const request = (chunks: string[], headers: Record<string, string> = {}) =>
  Object.assign(Readable.from(chunks.map((c) => Buffer.from(c))), { headers }) as unknown as IncomingMessage;

describe('raw body', () => {
  it.each([
    ['application/json', true],
    ['application/json; charset=utf-8', true],
    ['Application/JSON', true],
    ['application/vnd.api+json', true],
    ['text/plain', false],
    ['application/x-www-form-urlencoded', false],
    [undefined, false],
  ])('content type %s → %s', (type, ok) => expect(isJsonContentType(type)).toBe(ok));

  it('keeps the exact bytes and refuses bodies over the limit', async () => {
    expect((await readRawBody(request(['{"a":', ' 1}']), 100)).toString()).toBe('{"a": 1}');
    await expect(readRawBody(request(['x'.repeat(60), 'x'.repeat(60)]), 100)).rejects.toMatchObject({ status: 413 });
    await expect(readRawBody(request([], { 'content-length': '101' }), 100)).rejects.toMatchObject({ status: 413 });
  });

  it('parses JSON or answers 400', () => {
    expect(parseJsonBody(Buffer.from('{"a":1}')).value).toEqual({ a: 1 });
    expect(() => parseJsonBody(Buffer.from('{"a":'))).toThrow(expect.objectContaining({ status: 400, code: 'malformed_json' }));
  });

  it('answers 400 invalid_utf8 for bytes that are not UTF-8, and keeps multi-byte text as sent', () => {
    expect(() => parseJsonBody(Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d]))).toThrow(expect.objectContaining({ status: 400, code: 'invalid_utf8' }));
    expect(() => parseJsonBody(Buffer.from([0x22, 0xed, 0xa0, 0x80, 0x22]))).toThrow(expect.objectContaining({ code: 'invalid_utf8' }));
    expect(parseJsonBody(Buffer.from('{"a":"café ☃ 😀"}')).text).toBe('{"a":"café ☃ 😀"}');
  });
});

describe('nesting depth', () => {
  const arrays = (n: number) => '['.repeat(n) + ']'.repeat(n);
  const objects = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
  const mixed = (n: number) => Array.from({ length: n }, (_, i) => (i % 2 ? '[' : '{"k":')).join('') + 'null' + Array.from({ length: n }, (_, i) => (i % 2 ? ']' : '}')).reverse().join('');

  it.each([
    ['arrays', arrays],
    ['objects', objects],
    ['arrays and objects', mixed],
  ])('accepts %s nested exactly MAX_JSON_DEPTH deep and refuses one level more with 400 json_too_deep', (_name, nest) => {
    expect(parseJsonBody(Buffer.from(nest(MAX_JSON_DEPTH))).text).toBe(nest(MAX_JSON_DEPTH));
    expect(() => parseJsonBody(Buffer.from(nest(MAX_JSON_DEPTH + 1)))).toThrow(
      expect.objectContaining({ status: 400, code: 'json_too_deep', details: { limit: MAX_JSON_DEPTH } }),
    );
  });

  it('measures 500,000 levels without overflowing the stack', () => {
    expect(nestsDeeperThan(Buffer.from(arrays(500_000)), MAX_JSON_DEPTH)).toBe(true);
    expect(() => parseJsonBody(Buffer.from(arrays(500_000)))).toThrow(expect.objectContaining({ code: 'json_too_deep' }));
  });

  it('counts brackets inside strings and after escapes as text', () => {
    const text = (s: string) => JSON.stringify(s);
    expect(nestsDeeperThan(Buffer.from(`[${text('['.repeat(600))}]`), 3)).toBe(false);
    expect(nestsDeeperThan(Buffer.from(`[[${text('\\"[[[[')},${text('x\\')}]]`), 2)).toBe(false);
    expect(nestsDeeperThan(Buffer.from(`[[${text('\\"]]]]')},[[[]]]]]`), 4)).toBe(true);
    expect(nestsDeeperThan(Buffer.from(`{"[{":{"}]":[${text('é{😀[')}]}}`), 3)).toBe(false);
    expect(nestsDeeperThan(Buffer.from(`{"[{":{"}]":[${text('é{😀[')}, [1]]}}`), 3)).toBe(true);
  });

  it('ends within the bytes given even for an unterminated string', () => {
    expect(nestsDeeperThan(Buffer.from(`[${'"'}${'['.repeat(100)}`), 2)).toBe(false);
  });
});
