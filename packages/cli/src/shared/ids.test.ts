import { isUuid, uuidv7, uuidv7LowerBound, uuidv7Millis } from './ids';

describe('uuidv7', () => {
  it('is a valid version-7, RFC 4122-variant UUID carrying its millisecond', () => {
    const now = Date.UTC(2026, 10, 22, 12, 0, 0, 123);
    const id = uuidv7(now);
    expect(isUuid(id)).toBe(true);
    expect(id[14]).toBe('7');
    expect(['8', '9', 'a', 'b']).toContain(id[19]);
    expect(uuidv7Millis(id)).toBe(now);
  });

  it('sorts by time and is unique within a millisecond', () => {
    const earlier = uuidv7(1_000);
    const later = uuidv7(2_000);
    expect(earlier < later).toBe(true);
    expect(uuidv7LowerBound(2_000) <= later).toBe(true);
    expect(uuidv7LowerBound(2_001) > later).toBe(true);
    const same = new Set(Array.from({ length: 1000 }, () => uuidv7(5_000)));
    expect(same.size).toBe(1000);
  });
});
