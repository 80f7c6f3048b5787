import type { SendResult } from '../sending/send-result';

/**
 * What an Issue groups failures by, with the destination (docs/alerts.md#issues): the class of the
 * HTTP answer, or why none came, or why nothing was sent.
 */
export const ISSUE_CAUSES = [
  'http_3xx',
  'http_4xx',
  'http_5xx',
  'platform_error',
  'timeout',
  'connection_refused',
  'connection_error',
  'transform_error',
  'template_error',
  'circuit_open',
  'configuration',
  // A source's (docs/schemas.md): its payloads changed, it went silent.
  'schema_changed',
  'source_silent',
] as const;
export type IssueCause = (typeof ISSUE_CAUSES)[number];

/**
 * The cause of a failed send; null for a success, a skipped CLI forward or a chat platform's rate limit (not
 * failures), and for a workflow that ended without an outcome (the relay's, not the destination's: dead-lettered, in no issue).
 */
export function issueCause(result: Pick<SendResult, 'ok' | 'skipped' | 'rateLimited' | 'statusCode' | 'failure'>): Exclude<IssueCause, 'schema_changed' | 'source_silent'> | null {
  if (result.ok || result.skipped || result.rateLimited || result.failure === 'workflow_ended') return null;
  if (result.failure) return result.failure;
  const code = result.statusCode;
  if (code === null) return 'configuration'; // not sent: a refused or missing URL, a missing token or base URL
  if (code >= 300 && code < 400) return 'http_3xx';
  if (code >= 400 && code < 500) return 'http_4xx';
  if (code >= 500) return 'http_5xx';
  return 'platform_error'; // a 2xx that says it failed (`{ "ok": false }`)
}
