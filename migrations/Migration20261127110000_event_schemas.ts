import { Migration } from '@mikro-orm/migrations';

/**
 * Inferred schemas, drift and silence (docs/schemas.md):
 * - per source (endpoint) settings: `schema_alerts`, `silence_alerts`, `expected_interval_seconds`;
 * - `event_schemas`: the learned shape of each source and event type (src/schemas/shape.ts), with one
 *   example event per distinct shape;
 * - `schema_changes`: the drift history (what an event changed), each linked to the issue it grew;
 * - `source_activity`: per source, when events arrive (last one, a histogram of the gaps between
 *   them, the learned expectation) and whether it is silent;
 * - `schema_learner_cursor`: how far the learner read the events (in id order), starting now;
 * - issues about a source: `issues.endpoint_id` (and `event_type`) instead of a destination, at most
 *   one active per source, cause and event type. relay_set_issue_state learns them.
 */
export class Migration20261127110000_event_schemas extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "webhook_endpoints"
      add column "schema_alerts" text not null default 'changes' check ("schema_alerts" in ('off', 'changes', 'all')),
      add column "silence_alerts" text not null default 'learned' check ("silence_alerts" in ('off', 'learned', 'expected_interval')),
      add column "expected_interval_seconds" int null check ("expected_interval_seconds" between 10 and 2592000);`);

    this.addSql(`create table "event_schemas" (
      "id" uuid not null default relay_uuidv7() primary key,
      "project_id" uuid not null references "projects" ("id") on delete cascade,
      "endpoint_id" uuid not null references "webhook_endpoints" ("id") on delete cascade,
      "event_type" text not null,
      "event_count" bigint not null default 0,
      "learned_count" bigint not null default 0,
      "first_seen_at" timestamptz not null,
      "last_seen_at" timestamptz not null,
      "shape" jsonb not null,
      "path_count" int not null default 0,
      "truncated" boolean not null default false,
      "shapes" jsonb not null default '{}',
      "updated_at" timestamptz not null default now());`);
    this.addSql(`create unique index "event_schemas_endpoint_type_idx" on "event_schemas" ("endpoint_id", "event_type");`);

    this.addSql(`create table "schema_changes" (
      "id" uuid not null default relay_uuidv7() primary key,
      "project_id" uuid not null references "projects" ("id") on delete cascade,
      "endpoint_id" uuid not null references "webhook_endpoints" ("id") on delete cascade,
      "schema_id" uuid not null references "event_schemas" ("id") on delete cascade,
      "event_type" text not null,
      "kind" text not null check ("kind" in ('changed', 'new_event_type')),
      "added" jsonb not null default '[]',
      "removed" jsonb not null default '[]',
      "retyped" jsonb not null default '[]',
      "event_id" uuid not null,
      "detected_at" timestamptz not null default now(),
      "alerted" boolean not null,
      "issue_id" uuid null references "issues" ("id") on delete set null,
      "accepted_at" timestamptz null);`);
    this.addSql(`create index "schema_changes_schema_idx" on "schema_changes" ("schema_id", "id");`);
    this.addSql(`create index "schema_changes_issue_idx" on "schema_changes" ("issue_id") where "issue_id" is not null;`);

    this.addSql(`create table "source_activity" (
      "endpoint_id" uuid not null primary key references "webhook_endpoints" ("id") on delete cascade,
      "project_id" uuid not null references "projects" ("id") on delete cascade,
      "event_count" bigint not null default 0,
      "untracked_event_count" bigint not null default 0,
      "first_event_at" timestamptz null,
      "last_event_at" timestamptz null,
      "gaps" int[] not null default '{}',
      "learned_interval_seconds" int null,
      "expectation_since" timestamptz not null default now(),
      "silent_since" timestamptz null);`);

    this.addSql(`create table "schema_learner_cursor" (
      "id" int not null primary key default 1 check ("id" = 1),
      "last_event_id" uuid not null);`);
    this.addSql(`insert into "schema_learner_cursor" ("last_event_id") values (relay_uuidv7());`);

    // The smallest UUIDv7 of a moment: events received at or after it have ids at or above it.
    this.addSql(`create function relay_uuidv7_floor(t timestamptz) returns uuid language sql immutable as $$
      select (lpad(to_hex(floor(extract(epoch from t) * 1000)::bigint), 12, '0') || '70008000000000000000')::uuid
    $$;`);

    this.addSql(`alter table "issues"
      alter column "destination_id" drop not null,
      add column "endpoint_id" uuid null references "webhook_endpoints" ("id") on delete cascade,
      add column "event_type" text null,
      add constraint "issues_subject_check" check (("destination_id" is null) <> ("endpoint_id" is null));`);
    this.addSql(`create unique index "issues_source_active_idx" on "issues" ("endpoint_id", "cause", coalesce("event_type", '')) where "state" <> 'resolved' and "endpoint_id" is not null;`);
    this.addSql(`create index "issues_endpoint_idx" on "issues" ("endpoint_id", "id") where "endpoint_id" is not null;`);

    // A user's change of state, for a destination's issue as before, and for a source's (locked on the source, one
    // active per source, cause and event type; its events are emitted by the service, not here).
    this.addSql(`create or replace function relay_set_issue_state(p_issue uuid, p_state text) returns issues language plpgsql as $$
      declare
        i issues%rowtype;
        subject uuid;
      begin
        select coalesce(destination_id, endpoint_id) into subject from issues where id = p_issue;
        perform pg_advisory_xact_lock(hashtextextended('issues:' || subject, 0));
        select * into i from issues where id = p_issue;
        if i.state = p_state then return i; end if;
        if i.state = 'resolved' and exists (
          select 1 from issues o where o.state <> 'resolved' and o.cause = i.cause and o.id <> i.id
             and (o.destination_id = i.destination_id or (o.endpoint_id = i.endpoint_id and coalesce(o.event_type, '') = coalesce(i.event_type, '')))) then
          return null;
        end if;
        update issues set state = p_state, success_streak = 0, updated_at = now(),
               resolved_at = case when p_state = 'resolved' then now() end,
               resolved_by = case when p_state = 'resolved' then 'user' end
         where id = p_issue returning * into i;
        if i.destination_id is not null then
          if p_state = 'resolved' then perform relay_issue_resolved(i); end if;
          perform relay_count_open_issues(i.destination_id);
        end if;
        return i;
      end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`create or replace function relay_set_issue_state(p_issue uuid, p_state text) returns issues language plpgsql as $$
      declare
        i issues%rowtype;
        dest uuid;
      begin
        select destination_id into dest from issues where id = p_issue;
        perform pg_advisory_xact_lock(hashtextextended('issues:' || dest, 0));
        select * into i from issues where id = p_issue;
        if i.state = p_state then return i; end if;
        if i.state = 'resolved' and exists (select 1 from issues where destination_id = i.destination_id and cause = i.cause and state <> 'resolved') then
          return null;
        end if;
        update issues set state = p_state, success_streak = 0, updated_at = now(),
               resolved_at = case when p_state = 'resolved' then now() end,
               resolved_by = case when p_state = 'resolved' then 'user' end
         where id = p_issue returning * into i;
        if p_state = 'resolved' then perform relay_issue_resolved(i); end if;
        perform relay_count_open_issues(dest);
        return i;
      end $$;`);
    this.addSql(`delete from "issues" where "endpoint_id" is not null;`);
    this.addSql(`drop index "issues_endpoint_idx";`);
    this.addSql(`drop index "issues_source_active_idx";`);
    this.addSql(`alter table "issues" drop constraint "issues_subject_check", drop column "event_type", drop column "endpoint_id", alter column "destination_id" set not null;`);
    this.addSql(`drop function relay_uuidv7_floor(timestamptz);`);
    this.addSql(`drop table "schema_learner_cursor";`);
    this.addSql(`drop table "source_activity";`);
    this.addSql(`drop table "schema_changes";`);
    this.addSql(`drop table "event_schemas";`);
    this.addSql(`alter table "webhook_endpoints" drop column "schema_alerts", drop column "silence_alerts", drop column "expected_interval_seconds";`);
  }
}
