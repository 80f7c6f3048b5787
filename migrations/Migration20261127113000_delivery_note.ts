import { Migration } from '@mikro-orm/migrations';

/**
 * What the relay did to a delivery outside its attempts: its Temporal workflow ended without recording an outcome
 * (terminated, timed out) or was lost, and the workflow reconciler dead-lettered or restarted it
 * (src/deliveries/workflow-reconciler.ts). Null for every delivery nothing happened to; no rewrite of the table.
 */
export class Migration20261127113000_delivery_note extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "deliveries" add column "note" text null;`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "deliveries" drop column "note";`);
  }
}
