import { Migration } from '@mikro-orm/migrations';

export class Migration20261123140000_deliveries_replay_of_idx extends Migration {

  override async up(): Promise<void> {
    // "Not replayed yet" (the dead-letter queue, its count on the metrics page) probes replay_of_id for every dead letter; without this each probe scans deliveries.
    this.addSql(`create index "deliveries_replay_of_id_idx" on "deliveries" ("replay_of_id") where "replay_of_id" is not null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "deliveries_replay_of_id_idx";`);
  }

}
