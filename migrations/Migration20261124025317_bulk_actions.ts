import { Migration } from '@mikro-orm/migrations';

export class Migration20261124025317_bulk_actions extends Migration {

  override async up(): Promise<void> {
    // One row per bulk retry or cancel (src/bulk-actions): the deliveries it targets, fixed when it
    // starts, and how far it got. (project_id, idempotency_key) is unique: a second request with the
    // same key (a double click) returns the first one instead of doubling the work.
    this.addSql(`create table "bulk_actions" (
      "id" uuid not null primary key,
      "project_id" uuid not null references "projects" ("id") on delete cascade,
      "kind" text not null check ("kind" in ('retry', 'cancel')),
      "idempotency_key" text not null,
      "filter" jsonb not null,
      "target_ids" uuid[] not null,
      "done" integer not null default 0,
      "applied" integer not null default 0,
      "status" text not null default 'running' check ("status" in ('running', 'completed')),
      "created_by" uuid null,
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now(),
      constraint "bulk_actions_project_key_unique" unique ("project_id", "idempotency_key")
    );`);
  }

  override async down(): Promise<void> {
    this.addSql('drop table "bulk_actions";');
  }

}
