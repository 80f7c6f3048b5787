import { Migration } from '@mikro-orm/migrations';

/**
 * `q`'s full-text pre-filter asks for exact words where the text says a word ends: every word of
 * `q` but the last is followed by a non-alphanumeric character in `q`, so the matching payload
 * holds it as a whole word; only the last word, when `q` ends inside it, is asked as a prefix
 * `(word | word:*)`. An exact word is one posting list the GIN index can skip through, and it
 * has statistics; a prefix is read whole into a bitmap. bench:search, "q a customer email"
 * (`customer123@shop.example`, where `shop` and `example` are in a third of the events): p95
 * 210 ms with every word as a prefix (docs/benchmarks.md "Search"). ILIKE still checks the exact text.
 */
export class Migration20261124085200_search_tsquery_exact_words extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create or replace function relay_search_tsquery(q text) returns tsquery language sql immutable parallel safe as $$
      select to_tsquery('simple', string_agg(case when last and q ~ '[[:alnum:]]$' then '(' || lexeme || ' | ' || lexeme || ':*)' else lexeme end, ' & '))
        from (select m.n = max(m.n) over () as last, unnest(tsvector_to_array(to_tsvector('simple', m.word[1]))) as lexeme
                from regexp_matches(q, '[[:alnum:]]+', 'g') with ordinality as m(word, n)) words
    $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create or replace function relay_search_tsquery(q text) returns tsquery language sql immutable parallel safe as $$
      select to_tsquery('simple', string_agg('(' || word || ' | ' || word || ':*)', ' & '))
        from unnest(tsvector_to_array(to_tsvector('simple', regexp_replace(q, '[^[:alnum:]]+', ' ', 'g')))) word
    $$;`);
  }
}
