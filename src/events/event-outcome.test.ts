import { ATTEMPT_STATUS_OUTCOMES, deliveryOutcome, eventOutcome, OUTCOME_WORDS, OUTCOMES, outcomeLabel, worstOutcome } from '../../packages/cli/src/shared/outcomes';
import { EVENT_OUTCOMES, OUTCOME_SQL } from './event-outcome';

describe('the outcome words (packages/cli/src/shared/outcomes.ts)', () => {
  it('reads each delivery status as an outcome word; a failed delivery in the dead-letter queue is dead-lettered', () => {
    expect(deliveryOutcome('success')).toBe('delivered');
    expect(deliveryOutcome('queued')).toBe('pending');
    expect(deliveryOutcome('retrying')).toBe('retrying');
    expect(deliveryOutcome('failed')).toBe('failed');
    expect(deliveryOutcome('failed', true)).toBe('dead_lettered');
    expect(deliveryOutcome('skipped')).toBe('skipped');
    expect(deliveryOutcome('canceled')).toBe('canceled');
    // Only a failure is dead-lettered: a replay that succeeded later is another delivery.
    expect(deliveryOutcome('success', true)).toBe('delivered');
  });

  it("sums an event up as the worst of its current deliveries, after what happened at ingress and fan-out", () => {
    const event = (deliveries: Parameters<typeof eventOutcome>[0]['deliveries'], more = {}) => eventOutcome({ filtered: false, dispatched: true, deliveries, ...more });
    expect(event(['delivered', 'dead_lettered'])).toBe('dead_lettered');
    expect(event(['delivered', 'retrying', 'failed'])).toBe('failed');
    expect(event(['skipped', 'retrying'])).toBe('retrying');
    expect(event(['delivered', 'pending'])).toBe('pending');
    expect(event(['delivered', 'skipped'])).toBe('skipped');
    expect(event(['canceled', 'delivered'])).toBe('canceled');
    expect(event(['delivered', 'delivered'])).toBe('delivered');
    expect(event([])).toBe('no_destination');
    expect(event([], { dispatched: false })).toBe('pending');
    expect(event([], { filtered: true })).toBe('filtered');
    expect(event([], { quarantined: true })).toBe('quarantined');
    // A replay of a quarantined event: its deliveries say how it went.
    expect(event(['delivered'], { quarantined: true })).toBe('delivered');
    expect(worstOutcome(['filtered', 'quarantined', 'delivered'])).toBe('quarantined');
  });

  it('has one label for each word, and the API lists them in that order', () => {
    // rate_limited is an attempt's word only: never an event's outcome, so not among the events filter's words.
    expect(Object.keys(OUTCOME_WORDS).sort()).toEqual([...OUTCOMES, 'rate_limited'].sort());
    expect(ATTEMPT_STATUS_OUTCOMES.rate_limited).toBe('rate_limited');
    expect(outcomeLabel('rate_limited')).toBe('rate-limited');
    expect(outcomeLabel('dead_lettered')).toBe('dead-lettered');
    expect(outcomeLabel('no_destination')).toBe('no destination');
    expect(EVENT_OUTCOMES).toEqual(OUTCOMES);
  });

  it('generates the SQL from the same words: the rank is their order, each delivery status maps as deliveryOutcome does', () => {
    expect(OUTCOME_SQL).toContain(`array['quarantined', 'dead_lettered', 'failed', 'retrying', 'pending', 'skipped', 'canceled', 'delivered', 'no_destination', 'filtered']`);
    expect(OUTCOME_SQL).toContain(`when d.status = 'failed' and d.dead_lettered_at is not null then 'dead_lettered'`);
    for (const [status, word] of [['queued', 'pending'], ['success', 'delivered'], ['skipped', 'skipped']]) expect(OUTCOME_SQL).toContain(`when d.status = '${status}' then '${word}'`);
  });
});
