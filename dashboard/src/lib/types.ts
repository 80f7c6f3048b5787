import type { Outcome } from '../../../packages/cli/src/shared/outcomes';

/** The GraphQL shapes the pages read (only the fields they ask for). */
export interface EndpointRef {
  id: string;
  name: string;
  slug: string;
}

export interface EventRow {
  id: string;
  endpointId: string;
  eventType: string;
  status: string;
  sourceIp: string | null;
  createdAt: string;
  endpoint: EndpointRef | null;
  /** The deliveries' outcome summarised (src/events/event-outcome.ts), with the delivery it comes from. */
  outcome: Outcome;
  outcomeDestination: { id: string; name: string } | null;
  lastStatusCode: number | null;
  destinationCount: number;
}
export type EventOutcomeFields = Pick<EventRow, 'outcome' | 'outcomeDestination' | 'lastStatusCode' | 'destinationCount'>;
export const EVENT_OUTCOME_FIELDS = 'outcome outcomeDestination { id name } lastStatusCode destinationCount';

export interface Attempt {
  id: string;
  deliveryId: string;
  attemptNumber: number;
  status: string;
  statusCode: number | null;
  latencyMs: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  responseBodyTruncated: boolean;
  error: string | null;
  nextRetryAt: string | null;
  createdAt: string;
}

export interface Delivery {
  id: string;
  eventId: string;
  status: string;
  attemptCount: number;
  nextRetryAt: string | null;
  replayOfId: string | null;
  deadLetteredAt: string | null;
  completedAt: string | null;
  /** What the relay did outside the attempts (its workflow lost and started again, or ended without an outcome). */
  note: string | null;
  createdAt: string;
  /** The delivery's page in the Temporal UI; null when the service does not know the UI's address. */
  workflowUrl: string | null;
  destination: { id: string; name: string; type: string } | null;
  attempts: Attempt[];
}

export interface Page<T> {
  data: T[];
  nextCursor: string | null;
}

export const EVENT_ROW_FIELDS = `id endpointId eventType status sourceIp createdAt ${EVENT_OUTCOME_FIELDS} endpoint { id name slug }`;
