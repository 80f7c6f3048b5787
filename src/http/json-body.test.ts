import { Readable } from 'node:stream';
import type { IncomingMessage } from 'node:http';
import { isJsonContentType, parseJsonBody, readRawBody } from './json-body';

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
