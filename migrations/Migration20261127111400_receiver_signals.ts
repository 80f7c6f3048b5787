import { Migration } from '@mikro-orm/migrations';

/**
 * Receiver signals scoped to what sent them, and waited-out answers on record (docs/receiver-signals.md):
 * - a chat platform's global cooldown belongs to the credential that got it: the key becomes (platform, SHA-256
 *   fingerprint of the bot token), never the token. Platform-wide rows from before are dropped: a tenant's own
 *   webhook URL could have set them;
 * - an answer that is waited out (a 429, a 503 with Retry-After, a credential's cooldown) is an attempt of its own
 *   kind, `rate_limited`, that does not count towards max_attempts.
 */
export class Migration20261127111400_receiver_signals extends Migration {
  override async up(): Promise<void> {
    this.addSql(`delete from "platform_cooldowns";`);
    this.addSql(`alter table "platform_cooldowns" drop constraint "platform_cooldowns_pkey", add column "credential" text not null;`);
    this.addSql(`alter table "platform_cooldowns" add constraint "platform_cooldowns_pkey" primary key ("platform", "credential");`);
    this.addSql(`alter table "delivery_attempts" drop constraint if exists "delivery_attempts_status_check";`);
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_status_check" check ("status" in ('queued', 'retrying', 'success', 'failed', 'canceled', 'skipped', 'rate_limited'));`,
    );
  }

  override async down(): Promise<void> {
    this.addSql(`delete from "delivery_attempts" where "status" = 'rate_limited';`);
    this.addSql(`alter table "delivery_attempts" drop constraint if exists "delivery_attempts_status_check";`);
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_status_check" check ("status" in ('queued', 'retrying', 'success', 'failed', 'canceled', 'skipped'));`,
    );
    this.addSql(`delete from "platform_cooldowns";`);
    this.addSql(`alter table "platform_cooldowns" drop constraint "platform_cooldowns_pkey", drop column "credential";`);
    this.addSql(`alter table "platform_cooldowns" add constraint "platform_cooldowns_pkey" primary key ("platform");`);
  }
}
