/** Limits of `relay listen` that the API enforces and the CLI checks or states. */

/** The longest delay a `listen` session may ask for before each forward. */
export const CLI_MAX_DELAY_MS = 10_000;

/** The most events `relay listen` is offered as missed at once (when it starts, or after a reconnection). */
export const CLI_MISSED_LIMIT = 1000;

/**
 * Why a delivery to a `cli` destination ended `skipped` without crossing the tunnel: the event does not match the
 * session's `--filter` conditions. The CLI leaves these out of "arrived while you were away".
 */
export const FILTERED_BY_SESSION = 'filtered out by the listen session (--filter): not forwarded';

/** What the CLI sends back of the local server's body; the API keeps the first STORED_BODY_LIMIT_BYTES of it. */
export const REPORTED_BODY_LIMIT_BYTES = 64 * 1024;

/** The first bytes of a response body an attempt keeps (cut on a UTF-8 boundary). */
export const STORED_BODY_LIMIT_BYTES = 4096;
