/** The limits the CLI states too (the session's --delay, missed events, the --filter skip reason). */
export { CLI_MAX_DELAY_MS, CLI_MISSED_LIMIT, FILTERED_BY_SESSION } from '../../packages/cli/src/shared/limits';

/** An API process refreshes its sessions' presence rows this often... */
export const CLI_HEARTBEAT_MS = 5_000;
/** ...and a row not refreshed for three heartbeats is a CLI that is gone (its API process died). */
export const CLI_STALE_AFTER_MS = 3 * CLI_HEARTBEAT_MS;
