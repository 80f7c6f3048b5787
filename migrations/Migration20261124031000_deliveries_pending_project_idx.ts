import { Migration } from '@mikro-orm/migrations';

export class Migration20261124031000_deliveries_pending_project_idx extends Migration {
  override async up(): Promise<void> {
    // The fair dispatcher's per-project window counts a project's started, unattempted deliveries on every pass.
    this.addSql(`create index "deliveries_pending_project_idx" on "deliveries" ("project_id") where "status" = 'queued';`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop index "deliveries_pending_project_idx";`);
  }
}
