import { Migration } from '@mikro-orm/migrations';

export class Migration20261122203100_deliveries_queued_idx extends Migration {

  override async up(): Promise<void> {
    // The backlog gauges and the dispatcher's start window read only queued deliveries, oldest first (src/deliveries/delivery-backlog.ts).
    this.addSql(`create index "deliveries_queued_idx" on "deliveries" ("id") where "status" = 'queued';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "deliveries_queued_idx";`);
  }

}
