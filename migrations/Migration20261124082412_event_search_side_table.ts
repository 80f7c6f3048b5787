import { Migration } from '@mikro-orm/migrations';

/**
 * Search data off the ingest path (docs/api.md "Searching events"). The two expression indexes of
 * Migration20261124050922_events_search were evaluated on every ingress INSERT (and again on the
 * outbox's non-HOT UPDATE of `dispatched_at`): bench:ingress fell from 9,679 to 6,026 events/s.
 * Now `event_search` holds one row per event, written by the outbox fan-out in its one statement
 * (src/deliveries/delivery-dispatcher.ts `fanOutEvents`): `doc`, the payload as jsonb (NULL when
 * jsonb cannot hold it) for `@>`, and `words`, the full-text vector of the payload text and header
 * values. The functions are those of the earlier migration; only where they run has changed.
 *
 * The outbox now takes filtered events too (its marker indexes lose `status = 'received'`), so a
 * filtered event gets its search row and `dispatched_at` but no delivery. Events already fanned out
 * get their rows here; undispatched ones (received or filtered) get them from the fan-out.
 */
export class Migration20261124082412_event_search_side_table extends Migration {
  override async up(): Promise<void> {
    this.addSql(`drop index if exists "events_search_words_idx";`);
    this.addSql(`drop index if exists "events_payload_jsonb_idx";`);
    this.addSql(`create table "event_search" (
      "event_id" uuid not null primary key references "events" ("id") on delete cascade,
      "doc" jsonb null,
      "words" tsvector not null);`);
    this.addSql(`insert into "event_search" ("event_id", "doc", "words")
      select "id", relay_event_payload_jsonb("payload"), relay_event_search_vector("payload", "headers") from "events" where "dispatched_at" is not null;`);
    this.addSql(`create index "event_search_doc_idx" on "event_search" using gin ("doc" jsonb_path_ops);`);
    this.addSql(`create index "event_search_words_idx" on "event_search" using gin ("words");`);
    this.addSql(`drop index "events_undispatched_idx";`);
    this.addSql(`drop index "events_undispatched_endpoint_idx";`);
    this.addSql(`create index "events_undispatched_idx" on "events" ("id") where "dispatched_at" is null;`);
    this.addSql(`create index "events_undispatched_endpoint_idx" on "events" ("endpoint_id", "id") where "dispatched_at" is null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "events_undispatched_endpoint_idx";`);
    this.addSql(`drop index "events_undispatched_idx";`);
    this.addSql(`create index "events_undispatched_idx" on "events" ("id") where "dispatched_at" is null and "status" = 'received';`);
    this.addSql(`create index "events_undispatched_endpoint_idx" on "events" ("endpoint_id", "id") where "dispatched_at" is null and "status" = 'received';`);
    this.addSql(`drop table "event_search";`);
    this.addSql(`create index "events_payload_jsonb_idx" on "events" using gin (relay_event_payload_jsonb("payload") jsonb_path_ops);`);
    this.addSql(`create index "events_search_words_idx" on "events" using gin (relay_event_search_vector("payload", "headers"));`);
  }
}
