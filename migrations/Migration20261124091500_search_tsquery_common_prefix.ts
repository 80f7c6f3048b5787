import { Migration } from '@mikro-orm/migrations';

/**
 * `q`'s pre-filter leaves out an open last word (one `q` may end inside) whose prefix is common:
 * a prefix is read whole from the GIN index (no skipping), about 100 ms for a word in a third of
 * 1,000,000 events (`example:*` in `customer12345@shop.example`), while the exact words before it
 * take under a millisecond (bench/search.bench.ts and docs/benchmarks.md "Search"). Common means
 * words starting with it hold more than 1 % of events by ANALYZE's most common words of
 * `event_search.words` (pg_stats), or the word is shorter than 3 characters. Only when `q` has
 * other words: ILIKE still checks the whole text, and a rare last word (an id, a hash) stays in
 * the pre-filter, where it is what makes the search fast. STABLE now: it reads statistics.
 */
export class Migration20261124091500_search_tsquery_common_prefix extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function relay_search_tsquery(q text) returns tsquery language sql stable parallel safe as $$
      with words as (
        select m.n = max(m.n) over () and q ~ '[[:alnum:]]$' as open, unnest(tsvector_to_array(to_tsvector('simple', m.word[1]))) as lexeme
          from regexp_matches(q, '[[:alnum:]]+', 'g') with ordinality as m(word, n)
      ), open_word_share as (
        select coalesce(sum(f.freq), 0) as share
          from words w, pg_stats s, unnest(s.most_common_elems::text::text[], s.most_common_elem_freqs) as f(elem, freq)
         where w.open and s.schemaname = current_schema() and s.tablename = 'event_search' and s.attname = 'words' and starts_with(f.elem, w.lexeme)
      )
      select to_tsquery('simple', string_agg(case when open then '(' || lexeme || ' | ' || lexeme || ':*)' else lexeme end, ' & '))
        from words
       where not (open and exists (select 1 from words c where not c.open) and (length(lexeme) < 3 or (select share from open_word_share) > 0.01))
    $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create or replace function relay_search_tsquery(q text) returns tsquery language sql immutable parallel safe as $$
      select to_tsquery('simple', string_agg(case when last and q ~ '[[:alnum:]]$' then '(' || lexeme || ' | ' || lexeme || ':*)' else lexeme end, ' & '))
        from (select m.n = max(m.n) over () as last, unnest(tsvector_to_array(to_tsvector('simple', m.word[1]))) as lexeme
                from regexp_matches(q, '[[:alnum:]]+', 'g') with ordinality as m(word, n)) words
    $$;`);
  }
}
