import { Migration } from '@mikro-orm/migrations';

export class Migration20261126115352_bulk_action_authority extends Migration {
  override async up(): Promise<void> {
    // A bulk action works with its creator's authority (src/bulk-actions): a user (created_by) or,
    // now, an API key. Checked before every batch; a creator who lost it stops the action, with why.
    this.addSql('alter table "bulk_actions" add column "created_by_api_key" uuid null, add column "stopped_reason" text null;');
    this.addSql('alter table "bulk_actions" drop constraint "bulk_actions_status_check";');
    this.addSql(`alter table "bulk_actions" add constraint "bulk_actions_status_check" check ("status" in ('running', 'completed', 'stopped'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`update "bulk_actions" set "status" = 'completed' where "status" = 'stopped';`);
    this.addSql('alter table "bulk_actions" drop constraint "bulk_actions_status_check";');
    this.addSql(`alter table "bulk_actions" add constraint "bulk_actions_status_check" check ("status" in ('running', 'completed'));`);
    this.addSql('alter table "bulk_actions" drop column "created_by_api_key", drop column "stopped_reason";');
  }
}
