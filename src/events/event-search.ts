import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { AppError, ValidationError } from '../common/errors';
import { withStatementTimeout } from '../db/statement-timeout';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../http/json-body';

/**
 * Search over stored events (docs/api.md "Searching events"): `contains`, a
 * JSON value the payload must contain (jsonb `@>`), and `q`, a case-insensitive
 * substring of the payload's stored text or of a header value that starts at a word. Both are
 * served by the `event_search` table's GIN indexes (`doc`, `words`), which the outbox fan-out fills
 * (migrations/Migration20261124082412_event_search_side_table.ts): an event is searchable once
 * it is fanned out, normally milliseconds after its 202.
 */

const NUL_OR_LONE_SURROGATE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * A string (key or value) PostgreSQL's jsonb cannot hold: a NUL character or a lone UTF-16 surrogate.
 * Recursive: only called on values known to nest at most MAX_JSON_DEPTH levels.
 */
function holdsUnstorableString(value: unknown): boolean {
  if (typeof value === 'string') return NUL_OR_LONE_SURROGATE.test(value);
  if (value && typeof value === 'object') {
    return Object.entries(value).some(([key, item]) => holdsUnstorableString(key) || holdsUnstorableString(item));
  }
  return false;
}

const CONTAINS_HINT = 'must be a JSON object or array the payload contains, e.g. {"repository":{"name":"relay"}}';

export const searchFields = {
  contains: z
    .string()
    .max(10_000)
    .transform((text, ctx) => {
      let value: unknown;
      try {
        value = JSON.parse(text);
      } catch {
        ctx.addIssue({ code: 'custom', message: `${CONTAINS_HINT}; this is not valid JSON` });
        return z.NEVER;
      }
      if (value === null || typeof value !== 'object') {
        ctx.addIssue({ code: 'custom', message: CONTAINS_HINT });
        return z.NEVER;
      }
      // No stored payload nests deeper (ingress refuses it), and the check below walks the value by recursion.
      if (nestsDeeperThan(Buffer.from(text), MAX_JSON_DEPTH)) {
        ctx.addIssue({ code: 'custom', message: `must not nest arrays and objects more than ${MAX_JSON_DEPTH} levels deep (no event is deeper)` });
        return z.NEVER;
      }
      if (holdsUnstorableString(value)) {
        ctx.addIssue({ code: 'custom', message: 'must not hold the NUL character (\\u0000) or a lone surrogate escape' });
        return z.NEVER;
      }
      // The text as sent, not JSON.stringify of the parsed value: PostgreSQL reads its numbers as exact decimals,
      // where JSON.parse would round 12345678901234567891 to a double and turn 1e400 into null.
      return text;
    })
    .optional()
    .describe(
      'A JSON object or array (URL-encoded) the payload contains, as PostgreSQL jsonb `@>`: `{"repository":{"name":"relay"}}` matches every payload holding that nested value. Numbers compare by their exact decimal value (`1e2` matches `100`; `12345678901234567891` only itself)',
    ),
  q: z
    .string()
    .min(3, 'must be at least 3 characters')
    .max(500)
    .regex(/[\p{L}\p{N}]/u, 'must hold a letter or a digit (the search finds text from the start of a word)')
    .optional()
    .describe('Text found, case-insensitively, in the payload (as stored, JSON escapes included) or in a header value, starting at the start of a word (`hook` finds `GitHub-Hookshot`, `ookshot` does not)'),
};

/** WHERE fragment (with bindings): the payload of `e` contains this JSON (validated text, as sent). */
export function containsCondition(json: string): [string, unknown[]] {
  return ['exists (select 1 from event_search s where s.event_id = e.id and s.doc @> ?::jsonb)', [json]];
}

/**
 * `q`'s index pre-filter (migrations/Migration20261124091500_search_tsquery_common_prefix.ts), built
 * once per search: relay_search_tsquery reads statistics, so it is STABLE, and inside the query it
 * would run again for every row PostgreSQL looks at (an unselective search reads many); passed in
 * as a constant, the planner also sees how selective it is.
 */
export async function textSearchQuery(em: EntityManager, text: string): Promise<string> {
  const [row] = await em.getConnection().execute<Array<{ tsquery: string | null }>>('select relay_search_tsquery(?)::text as tsquery', [text]);
  const tsquery = row?.tsquery ?? '';
  // No word PostgreSQL's text search can index (e.g. only symbols such as ①②③): the search could never match.
  if (tsquery === '') throw searchInputError('q', 'must hold a word the search can find (letters or digits such as a name or an id); this text has none');
  return tsquery;
}

function searchInputError(field: string, message: string): ValidationError {
  return new ValidationError(`Invalid search: ${field}: ${message}`, { fields: [{ field, message }] });
}

/**
 * WHERE fragment (with bindings): `text` occurs, case-insensitively, in the payload text or a header
 * value of `e`, from the start of a word. The full-text index finds the events matching `tsquery`
 * (textSearchQuery of the same text); ILIKE keeps those holding the exact text.
 */
export function textCondition(text: string, tsquery: string): [string, unknown[]] {
  return [
    `exists (select 1 from event_search s where s.event_id = e.id and s.words @@ ?::tsquery) and relay_event_search_text(e.payload, e.headers) ilike ? escape '!'`,
    [tsquery, `%${text.replace(/[!%_]/g, '!$&')}%`],
  ];
}

/** PostgreSQL's `numeric_value_out_of_range`: a `contains` number jsonb cannot hold (beyond about 1e131071, or 16,384 decimals). */
const NUMERIC_OUT_OF_RANGE = '22003';

/**
 * Runs a search's queries under RELAY_SEARCH_TIMEOUT_MS: an unselective text search answers a
 * 400 `search_too_broad` instead of holding a connection for as long as it takes.
 */
export async function withSearchTimeout<T>(em: EntityManager, timeoutMs: number, query: (em: EntityManager) => Promise<T>): Promise<T> {
  const tooBroad = () =>
    new AppError(400, 'search_too_broad', `The search did not finish within ${timeoutMs} ms: narrow it with longer text, a JSON containment, an endpoint or a time range.`, {
      timeout_ms: timeoutMs,
    });
  try {
    return await withStatementTimeout(em, timeoutMs, query, tooBroad);
  } catch (err) {
    if ((err as { code?: string }).code === NUMERIC_OUT_OF_RANGE) {
      throw searchInputError('contains', 'holds a number outside the range a search can compare (up to 131,072 digits before the decimal point and 16,383 after)');
    }
    throw err;
  }
}
