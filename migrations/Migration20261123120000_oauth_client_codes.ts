import { Migration } from '@mikro-orm/migrations';

export class Migration20261123120000_oauth_client_codes extends Migration {

  override async up(): Promise<void> {
    // OAuth sign-in for clients that are not the API's own callback (src/oauth/client-sign-in.service.ts): the CLI's
    // loopback address or the dashboard's /oauth/callback, with the client's PKCE challenge, ride on the flow, and the
    // callback leaves a one-time code for the client to exchange.
    this.addSql(`alter table "oauth_states" add column "client_redirect_uri" text null, add column "client_code_challenge" text null;`);
    this.addSql(`create table "oauth_client_codes" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "code_hash" text not null, "user_id" uuid not null, "code_challenge" text not null, "expires_at" timestamptz not null, constraint "oauth_client_codes_pkey" primary key ("id"));`);
    this.addSql(`alter table "oauth_client_codes" add constraint "oauth_client_codes_code_hash_unique" unique ("code_hash");`);
    this.addSql(`create index "oauth_client_codes_expires_at_index" on "oauth_client_codes" ("expires_at");`);
    this.addSql(`alter table "oauth_client_codes" add constraint "oauth_client_codes_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);
  }

}
