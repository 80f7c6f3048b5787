import { Migration } from '@mikro-orm/migrations';

export class Migration20261122202100_auth_throttle extends Migration {

  override async up(): Promise<void> {
    // Sign-in throttle counters shared by every API process (src/auth/auth-throttle.ts): per client IP and
    // action (fixed windows) and per account (failures and lockout). UNLOGGED: a crash only forgets them.
    this.addSql(`create unlogged table "auth_throttle" ("key" text not null, "count" int not null default 0, "window_start" bigint not null, "blocked_until" bigint null, constraint "auth_throttle_pkey" primary key ("key"));`);
  }

}
