import { Migration } from '@mikro-orm/migrations';

/**
 * Why and since when a destination is paused (`is_active = false`): `user` (Pause in the API or the
 * dashboard) or `receiver_gone` (the receiver answered 410 Gone; the attempt that got it pauses the
 * destination in the statement that records it). Resuming clears both (docs/delivery.md).
 */
export class Migration20261126095049_destination_pause_reason extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "destinations" add column "paused_reason" text null check ("paused_reason" in ('user', 'receiver_gone')), add column "paused_at" timestamptz null;`);
    this.addSql(`update "destinations" set "paused_reason" = 'user', "paused_at" = "updated_at" where not "is_active";`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "destinations" drop column "paused_reason", drop column "paused_at";`);
  }
}
