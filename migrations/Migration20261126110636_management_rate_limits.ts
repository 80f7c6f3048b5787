import { Migration } from '@mikro-orm/migrations';

/**
 * The management API rate limit's counters as rate-limiter-flexible keeps them: one row per
 * credential (key, points spent, when its window ends in ms), UNLOGGED like the counters they
 * replace (a crash forgets at most the current windows).
 */
export class Migration20261126110636_management_rate_limits extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create unlogged table "management_rate_limits" ("key" varchar(255) primary key, "points" integer not null default 0, "expire" bigint);`);
    this.addSql(`drop table if exists "management_rate_counters";`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "management_rate_limits";`);
    this.addSql(`create unlogged table "management_rate_counters" ("key" text not null, "window_start" bigint not null, "count" int not null default 0, constraint "management_rate_counters_pkey" primary key ("key", "window_start"));`);
  }
}
