import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { AppError } from '../common/errors';

/**
 * Search over stored events (docs/api.md "Searching events"): `contains`, a
 * JSON value the payload must contain (jsonb `@>`), and `q`, a case-insensitive
 * substring of the payload's stored text or of a header value that starts at a word. Both are
 * served by the `event_search` table's GIN indexes (`doc`, `words`), which the outbox fan-out fills
 * (migrations/Migration20261124082412_event_search_side_table.ts): an event is searchable once
 * it is fanned out, normally milliseconds after its 202.
 */

const NUL_OR_LONE_SURROGATE = /\0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A string (key or value) PostgreSQL's jsonb cannot hold: a NUL character or a lone UTF-16 surrogate. */
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
      if (holdsUnstorableString(value)) {
        ctx.addIssue({ code: 'custom', message: 'must not hold the NUL character (\\u0000) or a lone surrogate escape' });
        return z.NEVER;
      }
      return JSON.stringify(value);
    })
    .optional()
    .describe('A JSON object or array (URL-encoded) the payload contains, as PostgreSQL jsonb `@>`: `{"repository":{"name":"relay"}}` matches every payload holding that nested value'),
  q: z
    .string()
    .min(3, 'must be at least 3 characters')
    .max(500)
    .regex(/[\p{L}\p{N}]/u, 'must hold a letter or a digit (the search finds text from the start of a word)')
    .optional()
    .describe('Text found, case-insensitively, in the payload (as stored, JSON escapes included) or in a header value, starting at the start of a word (`hook` finds `GitHub-Hookshot`, `ookshot` does not)'),
};

/** WHERE fragment (with bindings): the payload of `e` contains this JSON (already validated and re-serialized). */
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
  return row?.tsquery ?? '';
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

/** PostgreSQL's `query_canceled`, which `statement_timeout` raises. */
const QUERY_CANCELED = '57014';

/**
 * Runs `query` in a transaction whose statements give up after `timeoutMs`:
 * an unselective text search answers a 400 `search_too_broad` instead of
 * holding a connection for as long as it takes.
 */
export async function withSearchTimeout<T>(em: EntityManager, timeoutMs: number, query: (em: EntityManager) => Promise<T>): Promise<T> {
  try {
    return await em.transactional(async (tx) => {
      await tx.execute(`set local statement_timeout = ${Math.trunc(timeoutMs)}`);
      return query(tx);
    });
  } catch (err) {
    if ((err as { code?: string }).code === QUERY_CANCELED) {
      throw new AppError(400, 'search_too_broad', `The search did not finish within ${timeoutMs} ms: narrow it with longer text, a JSON containment, an endpoint or a time range.`, {
        timeout_ms: timeoutMs,
      });
    }
    throw err;
  }
}
