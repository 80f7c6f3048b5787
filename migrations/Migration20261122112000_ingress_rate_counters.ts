import { Migration } from '@mikro-orm/migrations';

export class Migration20261122112000_ingress_rate_counters extends Migration {

  override async up(): Promise<void> {
    // Per-second ingress counters shared by every API process (src/ingress/rate-limiter.ts).
    // UNLOGGED: losing them in a crash only forgets the current second.
    this.addSql(`create unlogged table "ingress_rate_counters" ("scope" text not null, "window_start" bigint not null, "count" int not null default 0, constraint "ingress_rate_counters_pkey" primary key ("scope", "window_start"));`);
  }

}
