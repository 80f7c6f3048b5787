import { Migration } from '@mikro-orm/migrations';

/**
 * Payload and header search over events (docs/api.md "Searching events"):
 * two expression indexes, no new column, so ingress writes the same row.
 *
 * - `relay_event_payload_jsonb(payload)`: the payload as jsonb for `@>`
 *   containment (GIN, jsonb_path_ops). The stored `json` text can hold what
 *   jsonb refuses (`\u0000`, a lone surrogate escape); such a payload yields
 *   NULL (not searchable by containment) instead of failing the ingress
 *   INSERT. The cast sits behind `pg_input_is_valid` and uses `to_jsonb`
 *   (stable, so the planner cannot fold it ahead of the guard).
 * - `relay_event_search_text(payload, headers)`: the payload's stored text and
 *   the header values, one per line; `q` is a case-insensitive substring of it
 *   (`ILIKE`) that starts at a word. The index is a full-text one over its words
 *   (runs of letters and digits, `simple` configuration: no stemming, no stop
 *   words), `relay_event_search_vector`; `relay_search_tsquery(q)` asks for
 *   every word of `q` as a prefix and ILIKE rechecks the exact text. Full text
 *   rather than pg_trgm: a trigram index made each ingress INSERT of a
 *   realistic payload ~7x as costly, full text ~2-2.5x (docs/benchmarks.md "Search").
 *
 * These functions are deterministic for a given row, hence IMMUTABLE (an index
 * expression must be). `pg_input_is_valid` needs PostgreSQL 16 or later.
 */
/**
 * The payload's text and the header values (the body of relay_event_search_text), repeated inside
 * relay_event_search_vector: an index build runs with `search_path` = pg_catalog (PostgreSQL 17+),
 * where one of these functions could not find the other by name.
 */
const SEARCH_TEXT = `payload::text || E'\\n' || case when strpos(headers::text, '\\u') = 0 or pg_input_is_valid(headers::text, 'jsonb')
        then coalesce((select string_agg(value, E'\\n') from json_each_text(headers)), '') else headers::text end`;

export class Migration20261124050922_events_search extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function relay_event_payload_jsonb(payload json) returns jsonb language sql immutable parallel safe as $$
      select case when strpos(payload::text, '\\u') = 0 or pg_input_is_valid(payload::text, 'jsonb') then to_jsonb(payload) end
    $$;`);
    this.addSql(`create function relay_event_search_text(payload json, headers json) returns text language sql immutable parallel safe as $$
      select ${SEARCH_TEXT}
    $$;`);
    this.addSql(`create function relay_event_search_vector(payload json, headers json) returns tsvector language sql immutable parallel safe as $$
      select to_tsvector('simple', regexp_replace(${SEARCH_TEXT}, '[^[:alnum:]]+', ' ', 'g'))
    $$;`);
    this.addSql(`create function relay_search_tsquery(q text) returns tsquery language sql immutable parallel safe as $$
      select to_tsquery('simple', string_agg(word || ':*', ' & '))
        from unnest(tsvector_to_array(to_tsvector('simple', regexp_replace(q, '[^[:alnum:]]+', ' ', 'g')))) word
    $$;`);
    this.addSql(`create index "events_payload_jsonb_idx" on "events" using gin (relay_event_payload_jsonb("payload") jsonb_path_ops);`);
    this.addSql(`create index "events_search_words_idx" on "events" using gin (relay_event_search_vector("payload", "headers"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "events_search_words_idx";`);
    this.addSql(`drop index "events_payload_jsonb_idx";`);
    this.addSql(`drop function relay_search_tsquery(text);`);
    this.addSql(`drop function relay_event_search_vector(json, json);`);
    this.addSql(`drop function relay_event_search_text(json, json);`);
    this.addSql(`drop function relay_event_payload_jsonb(json);`);
  }
}
