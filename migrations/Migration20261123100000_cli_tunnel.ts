import { Migration } from '@mikro-orm/migrations';

export class Migration20261123100000_cli_tunnel extends Migration {

  override async up(): Promise<void> {
    // The `listen` tunnel (src/cli-sessions/, docs/internals/cli-tunnel.md). Both UNLOGGED: a crash only
    // forgets who is connected (the CLI reconnects) and the forwards in flight (their attempts time out and retry).
    // Presence: one row per open `cliForwards` subscription, kept fresh by its API process's heartbeat.
    this.addSql(`create unlogged table "cli_sessions" ("id" uuid not null, "destination_id" uuid not null references "destinations" ("id") on delete cascade, "instance_id" text not null, "connected_at" timestamptz not null default now(), "heartbeat_at" timestamptz not null default now(), constraint "cli_sessions_pkey" primary key ("id"));`);
    this.addSql(`create index "cli_sessions_destination_id_idx" on "cli_sessions" ("destination_id", "heartbeat_at");`);
    // One forward per (delivery, attempt) while the worker waits for the CLI's answer (`result`); removed when the attempt ends.
    this.addSql(`create unlogged table "cli_forwards" ("id" uuid not null, "delivery_id" uuid not null, "attempt_number" int not null, "destination_id" uuid not null references "destinations" ("id") on delete cascade, "project_id" uuid not null, "event_id" uuid not null, "headers" jsonb not null, "body" text not null, "delay_ms" int not null default 0, "created_at" timestamptz not null default now(), "result" jsonb null, "answered_at" timestamptz null, constraint "cli_forwards_pkey" primary key ("id"), constraint "cli_forwards_attempt_unique" unique ("delivery_id", "attempt_number"));`);
    this.addSql(`create index "cli_forwards_destination_id_idx" on "cli_forwards" ("destination_id") where "result" is null;`);
  }

}
