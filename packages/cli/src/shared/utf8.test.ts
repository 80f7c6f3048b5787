import { truncateUtf8 } from './utf8';

describe('truncateUtf8', () => {
  it('keeps a short body whole', () => {
    expect(truncateUtf8(Buffer.from('héllo'))).toEqual({ text: 'héllo', truncated: false });
  });

  it('keeps a body of exactly the limit whole', () => {
    expect(truncateUtf8(Buffer.from('a'.repeat(4096)))).toEqual({ text: 'a'.repeat(4096), truncated: false });
  });

  it.each([
    ['2-byte', 'é'],
    ['3-byte', '€'],
    ['4-byte', '😀'],
  ])('never splits a %s character at the boundary', (_name, ch) => {
    const width = Buffer.byteLength(ch);
    for (let pad = 0; pad < width; pad++) {
      const body = Buffer.from('a'.repeat(4096 - width + 1 + pad) + ch.repeat(3));
      const { text, truncated } = truncateUtf8(body);
      expect(truncated).toBe(true);
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
      expect(text).not.toContain('\uFFFD');
      expect(body.toString('utf8').startsWith(text)).toBe(true);
      // Nothing that would have fit was dropped.
      expect(Buffer.byteLength(text)).toBeGreaterThan(4096 - width);
    }
  });

  it('cuts a long ASCII body at exactly the limit', () => {
    const { text, truncated } = truncateUtf8(Buffer.from('x'.repeat(10_000)));
    expect(truncated).toBe(true);
    expect(text).toHaveLength(4096);
  });

  it('replaces NUL characters, which PostgreSQL text cannot store', () => {
    expect(truncateUtf8(Buffer.from('a\u0000b')).text).toBe('a\uFFFDb');
  });
});
