import { Migration } from '@mikro-orm/migrations';

/**
 * An event the outbox could not fan out on its own (its statement failed with a data error even
 * alone, src/deliveries/fan-out.ts) is quarantined rather than retried forever ahead of everyone
 * else's: `dispatched_at` is set (it leaves the outbox), no delivery is made, and the reason is kept
 * (docs/internals/delivery.md "Quarantined events").
 */
export class Migration20261126094645_events_quarantine extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "events" add column "quarantined_at" timestamptz null, add column "quarantine_reason" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "events" drop column "quarantined_at", drop column "quarantine_reason";`);
  }
}
