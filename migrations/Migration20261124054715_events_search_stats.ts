import { Migration } from '@mikro-orm/migrations';

/**
 * Good plans for `q` whatever its selectivity (measured by bench/search.bench.ts): PostgreSQL must
 * see that a common text (`hookshot`, in most events) matches many rows, so that it reads the
 * project's newest events until the page is full (milliseconds) instead of collecting every match
 * through the full-text index and sorting them (seconds at 1,000,000 events).
 *
 * - Statistics on relay_event_search_text(payload, headers), an expression no index holds, so the
 *   ILIKE is estimated from a sample instead of a fixed 0.5 % guess. Filled by ANALYZE (autovacuum);
 *   nothing is written on INSERT.
 * - relay_search_tsquery asks for each word as `(word | word:*)`: the same matches as `word:*`, but
 *   the exact word is estimated from the index's most common lexemes (a prefix alone gets a fixed guess).
 */
export class Migration20261124054715_events_search_stats extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create statistics "events_search_text_stats" on (relay_event_search_text("payload", "headers")) from "events";`);
    this.addSql(`create or replace function relay_search_tsquery(q text) returns tsquery language sql immutable parallel safe as $$
      select to_tsquery('simple', string_agg('(' || word || ' | ' || word || ':*)', ' & '))
        from unnest(tsvector_to_array(to_tsvector('simple', regexp_replace(q, '[^[:alnum:]]+', ' ', 'g')))) word
    $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create or replace function relay_search_tsquery(q text) returns tsquery language sql immutable parallel safe as $$
      select to_tsquery('simple', string_agg(word || ':*', ' & '))
        from unnest(tsvector_to_array(to_tsvector('simple', regexp_replace(q, '[^[:alnum:]]+', ' ', 'g')))) word
    $$;`);
    this.addSql(`drop statistics "events_search_text_stats";`);
  }
}
