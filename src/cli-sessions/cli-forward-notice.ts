import { isUuid } from '../common/ids';
import type { CliForwardView } from './cli-tunnel';

/**
 * The NOTIFY that hands a forward to the API process holding the CLI's
 * subscription (channel NOTIFY.cliForwards): `<destination id> <forward id>`,
 * followed by ` <the forward as JSON>` when it fits in a notification, so that
 * the API pushes it as it is told, without reading it back (docs/cli.md "How
 * the tunnel works"). A bigger forward, or one announced again (a retried
 * activity), carries ids only and is read from `cli_forwards`.
 */

/** PostgreSQL refuses a notification payload of 8000 bytes or more (its default build). */
export const NOTICE_LIMIT_BYTES = 7999;

/** The full notice of a fresh forward, or null when it would not fit (the ids-only notice is sent instead). */
export function forwardNotice(destinationId: string, forward: CliForwardView): string | null {
  const notice = `${destinationId} ${forward.id} ${JSON.stringify(forward)}`;
  return Buffer.byteLength(notice, 'utf8') <= NOTICE_LIMIT_BYTES ? notice : null;
}

export interface ParsedNotice {
  destinationId: string;
  forwardId: string;
  /** The forward itself when the notice carried it (and it is the forward named); null: read it from `cli_forwards`. */
  forward: CliForwardView | null;
}

/** Null for anything that is not a notice of a forward. */
export function parseForwardNotice(payload: string): ParsedNotice | null {
  const first = payload.indexOf(' ');
  const second = first < 0 ? -1 : payload.indexOf(' ', first + 1);
  const destinationId = first < 0 ? payload : payload.slice(0, first);
  const forwardId = first < 0 ? '' : payload.slice(first + 1, second < 0 ? undefined : second);
  if (!isUuid(destinationId) || !isUuid(forwardId)) return null;
  return { destinationId, forwardId, forward: second < 0 ? null : inlineForward(payload.slice(second + 1), forwardId) };
}

function inlineForward(text: string, forwardId: string): CliForwardView | null {
  try {
    const forward = JSON.parse(text) as CliForwardView;
    return forward && forward.id === forwardId && typeof forward.body === 'string' ? forward : null;
  } catch {
    return null;
  }
}
