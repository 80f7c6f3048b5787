import { Migration } from '@mikro-orm/migrations';

export class Migration20261122112500_accounts_oauth extends Migration {

  override async up(): Promise<void> {
    // Pending OAuth authorization-code flows (src/oauth/oauth-state.entity.ts): one row per `state`, deleted when used or expired.
    this.addSql(`create table "oauth_states" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "state_hash" text not null, "provider" text not null, "purpose" text check ("purpose" in ('sign_in', 'connect')) not null, "code_verifier_enc" text not null, "user_id" uuid null, "project_id" uuid null, "invite_id" uuid null, "scopes" text not null default '', "create_endpoint" boolean not null default false, "expires_at" timestamptz not null, constraint "oauth_states_pkey" primary key ("id"));`);
    this.addSql(`alter table "oauth_states" add constraint "oauth_states_state_hash_unique" unique ("state_hash");`);
    this.addSql(`create index "oauth_states_expires_at_index" on "oauth_states" ("expires_at");`);
    this.addSql(`alter table "oauth_states" add constraint "oauth_states_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "oauth_states" add constraint "oauth_states_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "oauth_states" add constraint "oauth_states_invite_id_foreign" foreign key ("invite_id") references "invites" ("id") on update cascade on delete set null;`);

    // Which provider account signs in as which user (OAuth sign-in).
    this.addSql(`create table "user_identities" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "user_id" uuid not null, "provider" text not null, "provider_user_id" text not null, constraint "user_identities_pkey" primary key ("id"));`);
    this.addSql(`alter table "user_identities" add constraint "user_identities_provider_provider_user_id_unique" unique ("provider", "provider_user_id");`);
    this.addSql(`create index "user_identities_user_id_index" on "user_identities" ("user_id");`);
    this.addSql(`alter table "user_identities" add constraint "user_identities_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    // Management API rate-limit counters shared by every API process (src/rate-limit/). UNLOGGED: a crash only forgets the current window.
    this.addSql(`create unlogged table "management_rate_counters" ("key" text not null, "window_start" bigint not null, "count" int not null default 0, constraint "management_rate_counters_pkey" primary key ("key", "window_start"));`);

    this.addSql(`create index "refresh_tokens_family_id_index" on "refresh_tokens" ("family_id");`);
  }

}
