import { Migration } from '@mikro-orm/migrations';

/**
 * The search row's words without the text-search parser (docs/api.md "Searching events"): the
 * search text (payload text and header values), lowercased, split at every run of characters that
 * are not letters or digits, each piece one lexeme (`array_to_tsvector`), with no positions. The
 * same words as before: the old vector ran `to_tsvector('simple', …)` over that same split, whose
 * tokens are already runs of letters and digits, which the `simple` dictionary only lowercases
 * (words of 2,047 bytes or more are still left out). The parser's pass and the positions cost the
 * fan-out about a quarter of each event's search row, and nothing read the positions: `q` asks for
 * whole words and prefixes, never phrases (docs/benchmarks.md "Search": the row's PostgreSQL CPU).
 *
 * `relay_search_words(text)` does the split; the fan-out's vector, its degraded vector (the first
 * 256 KiB of the text) and `relay_search_tsquery` (each word of `q`) all use it, so a query's words
 * are always split like the index's. Rows written before keep their vectors: the same lexemes.
 */
const SEARCH_TEXT = `payload::text || E'\\n' || case when strpos(headers::text, '\\u') = 0 or pg_input_is_valid(headers::text, 'jsonb')
        then coalesce((select string_agg(value, E'\\n') from json_each_text(headers)), '') else headers::text end`;

export class Migration20261126121600_search_words_by_split extends Migration {
  override async up(): Promise<void> {
    // array_to_tsvector does not check a tsvector's 1 MiB limit on its lexemes (to_tsvector refuses with 54000); its
    // lexemes never outweigh the text, so only a text of 1 MiB or more is counted, by a function that refuses the same way.
    this.addSql(`create function relay_search_words_counted(words text[]) returns tsvector language plpgsql immutable parallel safe as $$
      begin
        if (select sum(octet_length(word)) from (select distinct unnest(words) as word) d) >= 1048576 then
          raise exception 'the words of this text are too long for a tsvector (1 MiB at most)' using errcode = 'program_limit_exceeded';
        end if;
        return array_to_tsvector(words);
      end
    $$;`);
    this.addSql(`create function relay_search_words(text text) returns tsvector language sql immutable parallel safe as $$
      select case when octet_length(text) < 1048576 then array_to_tsvector(w.words) else relay_search_words_counted(w.words) end
        from (select array(select word from unnest(regexp_split_to_array(lower(text), '[^[:alnum:]]+')) word
                            where word <> '' and octet_length(word) < 2047) as words) w
    $$;`);
    this.addSql(`create or replace function relay_event_search_vector(payload json, headers json) returns tsvector language sql immutable parallel safe as $$
      select relay_search_words(${SEARCH_TEXT})
    $$;`);
    this.addSql(`create or replace function relay_search_tsquery(q text) returns tsquery language sql stable parallel safe as $$
      with words as (
        select m.n = max(m.n) over () and q ~ '[[:alnum:]]$' as open, unnest(tsvector_to_array(relay_search_words(m.word[1]))) as lexeme
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
    this.addSql(`create or replace function relay_event_search_vector(payload json, headers json) returns tsvector language sql immutable parallel safe as $$
      select to_tsvector('simple', regexp_replace(${SEARCH_TEXT}, '[^[:alnum:]]+', ' ', 'g'))
    $$;`);
    this.addSql(`drop function relay_search_words(text);`);
    this.addSql(`drop function relay_search_words_counted(text[]);`);
  }
}
