import { metricsWindow } from './metrics-window';

describe('metricsWindow', () => {
  const now = new Date('2026-11-23T13:47:31.250Z');

  test('hour: 60 one-minute buckets, the last one holding now', () => {
    const w = metricsWindow('hour', now);
    expect(w.bucketSeconds).toBe(60);
    expect(w.bucketStarts).toHaveLength(60);
    expect(new Date(w.bucketStarts[59]).toISOString()).toBe('2026-11-23T13:47:00.000Z');
    expect(w.to.toISOString()).toBe('2026-11-23T13:48:00.000Z');
    expect(w.from.toISOString()).toBe('2026-11-23T12:48:00.000Z');
  });

  test('day: 96 quarter-hour buckets aligned to :00/:15/:30/:45', () => {
    const w = metricsWindow('day', now);
    expect(w.bucketStarts).toHaveLength(96);
    expect(new Date(w.bucketStarts[95]).toISOString()).toBe('2026-11-23T13:45:00.000Z');
    expect(w.from.toISOString()).toBe('2026-11-22T14:00:00.000Z');
  });

  test('week: 168 hourly buckets', () => {
    const w = metricsWindow('week', now);
    expect(w.bucketStarts).toHaveLength(168);
    expect(w.to.toISOString()).toBe('2026-11-23T14:00:00.000Z');
    expect(w.from.toISOString()).toBe('2026-11-16T14:00:00.000Z');
    expect(w.bucketStarts[1] - w.bucketStarts[0]).toBe(3600_000);
  });

  test('a now exactly on a boundary opens a new bucket', () => {
    const w = metricsWindow('hour', new Date('2026-11-23T13:00:00.000Z'));
    expect(new Date(w.bucketStarts[59]).toISOString()).toBe('2026-11-23T13:00:00.000Z');
  });
});
