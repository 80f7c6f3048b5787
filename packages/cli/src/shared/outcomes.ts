/**
 * The outcome words: what happened to an event, one of its deliveries or one
 * attempt, in the same words everywhere (the Events list and the event page,
 * metrics, `relay trigger --wait`). The service, the dashboard and the CLI all
 * import this file, so it imports nothing.
 */

/** Worst first: an event's outcome is the worst of its current deliveries'. */
export const OUTCOMES = [
  'quarantined',
  'dead_lettered',
  'failed',
  'retrying',
  'pending',
  'skipped',
  'canceled',
  'delivered',
  'no_destination',
  'filtered',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

/**
 * Only an attempt can be `rate_limited`: the receiver asked to wait (a 429, a 503 with Retry-After) and the
 * answer was waited out. Never an event's or a delivery's outcome, so not among OUTCOMES (the events filter).
 */
export type AttemptOutcomeWord = Outcome | 'rate_limited';

export type OutcomeTone = 'ok' | 'bad' | 'wait' | 'muted';

interface OutcomeWord {
  /** What people read (the code itself is what APIs, filters and JSON carry). */
  label: string;
  tone: OutcomeTone;
  /** One line: what it means for an event (tooltips, the filter, docs/dashboard.md). */
  meaning: string;
}

export const OUTCOME_WORDS: Record<AttemptOutcomeWord, OutcomeWord> = {
  quarantined: { label: 'quarantined', tone: 'bad', meaning: 'the fan-out could not process the event, even alone: set aside with its reason, not delivered' },
  dead_lettered: { label: 'dead-lettered', tone: 'bad', meaning: 'a delivery failed for good and waits in the dead-letter queue' },
  failed: { label: 'failed', tone: 'bad', meaning: 'a delivery failed for good and is no longer in the dead-letter queue' },
  retrying: { label: 'retrying', tone: 'wait', meaning: 'a delivery failed and waits for its next attempt' },
  pending: { label: 'pending', tone: 'wait', meaning: 'not sent yet: waiting for the fan-out or for a first attempt' },
  skipped: { label: 'skipped', tone: 'muted', meaning: 'not forwarded: the `relay listen` CLI was away, paused or filtered it out' },
  canceled: { label: 'canceled', tone: 'muted', meaning: 'a delivery was canceled before it succeeded' },
  delivered: { label: 'delivered', tone: 'ok', meaning: 'every destination answered 2xx' },
  no_destination: { label: 'no destination', tone: 'muted', meaning: 'no active linked destination took the event' },
  filtered: { label: 'filtered', tone: 'muted', meaning: "the source's filters dropped the event: not delivered" },
  rate_limited: {
    label: 'rate-limited',
    tone: 'wait',
    meaning: 'the receiver asked to wait (a 429, or a 503 with Retry-After): waited out and sent again, not counted towards max_attempts',
  },
};

export const outcomeLabel = (outcome: AttemptOutcomeWord): string => OUTCOME_WORDS[outcome].label;

/**
 * A delivery's (or one attempt's) stored status as an outcome word; a failed
 * delivery that waits in the dead-letter queue reads `dead_lettered`.
 */
export const DELIVERY_STATUS_OUTCOMES = {
  queued: 'pending',
  retrying: 'retrying',
  success: 'delivered',
  failed: 'failed',
  canceled: 'canceled',
  skipped: 'skipped',
} as const satisfies Record<string, Outcome>;
export type DeliveryStatusName = keyof typeof DELIVERY_STATUS_OUTCOMES;

export function deliveryOutcome(status: DeliveryStatusName, deadLettered = false): Outcome {
  return status === 'failed' && deadLettered ? 'dead_lettered' : DELIVERY_STATUS_OUTCOMES[status];
}

/** An attempt's stored status as an outcome word: a delivery's, or `rate_limited`. */
export const ATTEMPT_STATUS_OUTCOMES = { ...DELIVERY_STATUS_OUTCOMES, rate_limited: 'rate_limited' } as const satisfies Record<string, AttemptOutcomeWord>;
export type AttemptStatusName = keyof typeof ATTEMPT_STATUS_OUTCOMES;

/** An event as far as its outcome goes: what happened at ingress and fan-out, and its current deliveries' outcomes. */
export interface OutcomeInput {
  filtered: boolean;
  /** The fan-out set the event aside (it has no delivery then; a replay may give it some). */
  quarantined?: boolean;
  /** The fan-out has run (it may have found no destination). */
  dispatched: boolean;
  /** One per destination: its newest delivery (a replay takes over from what it replays). */
  deliveries: readonly Outcome[];
}

/** The event's outcome: the worst of its current deliveries; without one, how far the event got. */
export function eventOutcome(event: OutcomeInput): Outcome {
  if (event.filtered) return 'filtered';
  if (event.deliveries.length > 0) return worstOutcome(event.deliveries);
  if (event.quarantined) return 'quarantined';
  return event.dispatched ? 'no_destination' : 'pending';
}

export function worstOutcome(outcomes: readonly Outcome[]): Outcome {
  return outcomes.reduce((worst, o) => (OUTCOMES.indexOf(o) < OUTCOMES.indexOf(worst) ? o : worst));
}
