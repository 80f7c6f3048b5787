import { Migration } from '@mikro-orm/migrations';

/** Global per-platform 429 cooldowns shared by every worker (docs/delivery.md: a chat platform's global limit pauses every delivery to it; src/sending/platform-cooldowns.ts). */
export class Migration20261122111251_platform_cooldowns extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "platform_cooldowns" ("platform" text not null, "until" timestamptz not null, "updated_at" timestamptz not null default now(), constraint "platform_cooldowns_pkey" primary key ("platform"));`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop table if exists "platform_cooldowns";`);
  }
}
