import { uuidv7, uuidv7LowerBound, uuidv7Millis } from './ids';

describe('UUIDv7 time bounds', () => {
  it('bounds ids by the millisecond they were made in', () => {
    const ms = Date.UTC(2026, 0, 31, 12, 0, 0, 123);
    const id = uuidv7(ms);
    expect(uuidv7Millis(id)).toBe(ms);
    expect(uuidv7LowerBound(ms) <= id).toBe(true);
    expect(uuidv7LowerBound(ms + 1) > id).toBe(true);
    expect(uuidv7(ms - 1) < uuidv7LowerBound(ms)).toBe(true);
  });
});
