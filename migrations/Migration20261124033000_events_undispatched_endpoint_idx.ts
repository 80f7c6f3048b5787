import { Migration } from '@mikro-orm/migrations';

export class Migration20261124033000_events_undispatched_endpoint_idx extends Migration {
  override async up(): Promise<void> {
    // The outbox's fan-out is fair between sources: a skip scan over the endpoints with waiting events, oldest first in each.
    this.addSql(`create index "events_undispatched_endpoint_idx" on "events" ("endpoint_id", "id") where "dispatched_at" is null and "status" = 'received';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "events_undispatched_endpoint_idx";`);
  }
}
