import { isWorkflowTaskStall } from './worker-watchdog';

describe('isWorkflowTaskStall', () => {
  const minute = 60_000;

  it('is a stall when tasks have waited a minute and the worker took none meanwhile', () => {
    expect(isWorkflowTaskStall({ count: 20, ageMs: 7 * minute }, 7 * minute, minute)).toBe(true);
    expect(isWorkflowTaskStall({ count: 1, ageMs: minute }, minute, minute)).toBe(true);
  });

  it('is not a stall while the worker makes progress, however old the backlog', () => {
    expect(isWorkflowTaskStall({ count: 43_000, ageMs: 10 * minute }, 200, minute)).toBe(false);
  });

  it('is not a stall when nothing waits, or not for long: an idle worker takes no tasks', () => {
    expect(isWorkflowTaskStall({ count: 0, ageMs: 0 }, 60 * minute, minute)).toBe(false);
    expect(isWorkflowTaskStall({ count: 5, ageMs: 2000 }, 60 * minute, minute)).toBe(false);
  });
});
