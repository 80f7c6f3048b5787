/**
 * PostgreSQL LISTEN/NOTIFY channels shared across processes. Payloads are
 * small hints; listeners re-read the tables (ids are UUIDv7, so "newer than
 * the last id seen" is a cheap query). One exception: a CLI forward travels
 * whole when it fits (`cliForwards`), as it has exactly one reader.
 */
export const NOTIFY = {
  /** Ingress committed new events (payload: empty or a project id); wakes the outbox dispatcher and subscriptions. */
  eventsCommitted: 'relay_events',
  /** A delivery attempt was recorded or changed (payload: attempt id). */
  attemptsChanged: 'relay_attempts',
  /** An endpoint (source) changed or was deleted (payload: endpoint id); ingress drops its cached copy. */
  endpointsChanged: 'relay_endpoints',
  /**
   * Someone may have lost access (payload: `user:<id>` membership change, `session:<refresh-token family id>`
   * revoked: logout, reuse, password change, removal from an organization); open subscriptions re-check (src/subscriptions/subscription-access.ts). Project archive/delete,
   * organization delete and API key revocation are read from `relay_endpoints`.
   */
  accessChanged: 'relay_access',
  /**
   * A worker handed a forward to a `listen` session (payload: `<destination id> <forward id>`, then the forward as JSON when
   * it fits: src/cli-sessions/cli-forward-notice.ts); the API process holding its subscription pushes it.
   */
  cliForwards: 'relay_cli_forwards',
  /** An operational occurrence was written (payload empty; sent by relay_emit_operational in SQL): wakes the publisher (src/operational-events). */
  operationalOccurrences: 'relay_operational',
} as const;
