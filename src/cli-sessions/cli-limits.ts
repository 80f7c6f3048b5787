/** The longest delay a `listen` session may ask for before each forward (docs/cli.md: a per-session delivery delay). */
export const CLI_MAX_DELAY_MS = 10_000;

/** An API process refreshes its sessions' presence rows this often... */
export const CLI_HEARTBEAT_MS = 5_000;
/** ...and a row not refreshed for three heartbeats is a CLI that is gone (its API process died). */
export const CLI_STALE_AFTER_MS = 3 * CLI_HEARTBEAT_MS;

/**
 * Why a delivery to a `cli` destination ended `skipped` without crossing the tunnel: the event does not match the
 * session's `--filter` conditions. The CLI leaves these out of "arrived while you were away".
 */
export const FILTERED_BY_SESSION = 'filtered out by the listen session (--filter): not forwarded';

/** The most events `relay listen` is offered as missed at once (when it starts, or after a reconnection). */
export const CLI_MISSED_LIMIT = 1000;
