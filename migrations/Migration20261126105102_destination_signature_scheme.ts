import { Migration } from '@mikro-orm/migrations';

/**
 * The scheme a destination's deliveries are signed in: `service` (`X-{prefix}-Signature: sha256=…`,
 * what every existing destination keeps) or `standard` (Standard Webhooks: `webhook-id`,
 * `webhook-timestamp`, `webhook-signature: v1,…`; docs/internals/sending.md).
 */
export class Migration20261126105102_destination_signature_scheme extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "destinations" add column "signature_scheme" text not null default 'service' check ("signature_scheme" in ('service', 'standard'));`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter table "destinations" drop column "signature_scheme";`);
  }
}
