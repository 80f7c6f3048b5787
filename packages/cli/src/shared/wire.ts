/** What the API and `relay listen` exchange over GraphQL (the `cliForwards` subscription and `reportCliForward`). */

/** One forward as the CLI receives it (GraphQL `CliForward`). */
export interface CliForwardView {
  id: string;
  eventId: string;
  deliveryId: string;
  attemptNumber: number;
  eventType: string;
  sourceSlug: string;
  receivedAt: string;
  method: 'POST';
  headers: Record<string, string>;
  body: string;
  delayMs: number;
}

/** The fields of `CliForward` the CLI selects: all of them. */
export const CLI_FORWARD_FIELDS = 'id eventId deliveryId attemptNumber eventType sourceSlug receivedAt method headers body delayMs';

/** The local server's answer, as `reportCliForward` takes it. */
export interface ForwardResult {
  forwardId: string;
  statusCode: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  latencyMs: number;
  error: string | null;
  skipped?: boolean;
}
