import { addGap, GAP_BUCKETS, learnedIntervalSeconds, p95GapSeconds } from './silence';

const gapsOf = (seconds: number[]) => seconds.reduce<number[]>((h, s) => addGap(h, s * 1000), []);

describe('silence: the learned expectation', () => {
  it('buckets gaps by powers of two and reads the 95th percentile from them', () => {
    const h = gapsOf([0, 1, 2, 3, 6, 7]);
    expect(h).toHaveLength(GAP_BUCKETS);
    expect(h.slice(0, 4)).toEqual([1, 2, 2, 1]);
    // 19 gaps of a minute, one of a day: the 95th percentile is a minute's bucket (32–62 s).
    expect(p95GapSeconds(gapsOf([...Array(19).fill(60), 86_400]))).toBe(62);
    expect(p95GapSeconds([])).toBeNull();
  });

  it('halves the histogram as it grows, so recent traffic weighs most', () => {
    let h = gapsOf(Array(10_000).fill(60));
    h = addGap(h, 60_000);
    expect(h.reduce((a, b) => a + b, 0)).toBe(5000);
  });

  it('learns nothing before 100 events over a day; then four times the p95 gap, at least an hour', () => {
    const day = new Date('2026-11-20T00:00:00Z');
    const later = (ms: number) => new Date(day.getTime() + ms);
    const hourly = gapsOf(Array(150).fill(3600));
    expect(learnedIntervalSeconds({ eventCount: 99, firstEventAt: day, lastEventAt: later(7 * 86_400_000), gaps: hourly })).toBeNull();
    expect(learnedIntervalSeconds({ eventCount: 150, firstEventAt: day, lastEventAt: later(3_600_000), gaps: hourly })).toBeNull();
    // An hour falls in the 2048–4094 s bucket: four times its bound.
    expect(learnedIntervalSeconds({ eventCount: 150, firstEventAt: day, lastEventAt: later(6 * 86_400_000), gaps: hourly })).toBe(4 * 4094);
    expect(learnedIntervalSeconds({ eventCount: 5000, firstEventAt: day, lastEventAt: later(2 * 86_400_000), gaps: gapsOf(Array(5000).fill(1)) })).toBe(3600);
  });
});
