import { RawJson, stringifyJson } from './raw-json';

describe('RawJson', () => {
  const exact = '{ "n": 12345678901234567890, "b": 1.10, "z": "caf\\u00e9", "a": [1e400] }\n';

  it('writes the stored text unchanged wherever it sits, and everything else as JSON.stringify does', () => {
    expect(stringifyJson(new RawJson(exact))).toBe(exact);
    const answer = stringifyJson({ id: 'x', payload: new RawJson(exact), items: [new RawJson('12345678901234567890'), { q: 'a"b' }] });
    expect(answer).toBe(`{"id":"x","payload":${exact},"items":[12345678901234567890,{"q":"a\\"b"}]}`);
    expect(stringifyJson({ a: 1, s: '\u0000raw-json:0' })).toBe(JSON.stringify({ a: 1, s: '\u0000raw-json:0' }));
    expect(stringifyJson(undefined)).toBe('null');
  });

  it('is the parsed value for plain JSON.stringify (big numbers rounded there)', () => {
    expect(JSON.stringify({ p: new RawJson('{"n":12345678901234567890}') })).toBe('{"p":{"n":12345678901234567000}}');
  });
});
