import { Migration } from '@mikro-orm/migrations';

export class Migration20261123150000_oauth_client_codes extends Migration {

  override async up(): Promise<void> {
    // The CLI's one-time-code sign-in now serves the dashboard too (src/oauth/client-sign-in.service.ts): CLI-only names become client names.
    this.addSql(`alter table "oauth_states" rename column "cli_redirect_uri" to "client_redirect_uri";`);
    this.addSql(`alter table "oauth_states" rename column "cli_code_challenge" to "client_code_challenge";`);
    this.addSql(`alter table "oauth_cli_codes" rename to "oauth_client_codes";`);
    this.addSql(`alter table "oauth_client_codes" rename constraint "oauth_cli_codes_pkey" to "oauth_client_codes_pkey";`);
    this.addSql(`alter table "oauth_client_codes" rename constraint "oauth_cli_codes_code_hash_unique" to "oauth_client_codes_code_hash_unique";`);
    this.addSql(`alter table "oauth_client_codes" rename constraint "oauth_cli_codes_user_id_foreign" to "oauth_client_codes_user_id_foreign";`);
    this.addSql(`alter index "oauth_cli_codes_expires_at_index" rename to "oauth_client_codes_expires_at_index";`);
  }

  override async down(): Promise<void> {
    this.addSql(`alter index "oauth_client_codes_expires_at_index" rename to "oauth_cli_codes_expires_at_index";`);
    this.addSql(`alter table "oauth_client_codes" rename constraint "oauth_client_codes_user_id_foreign" to "oauth_cli_codes_user_id_foreign";`);
    this.addSql(`alter table "oauth_client_codes" rename constraint "oauth_client_codes_code_hash_unique" to "oauth_cli_codes_code_hash_unique";`);
    this.addSql(`alter table "oauth_client_codes" rename constraint "oauth_client_codes_pkey" to "oauth_cli_codes_pkey";`);
    this.addSql(`alter table "oauth_client_codes" rename to "oauth_cli_codes";`);
    this.addSql(`alter table "oauth_states" rename column "client_code_challenge" to "cli_code_challenge";`);
    this.addSql(`alter table "oauth_states" rename column "client_redirect_uri" to "cli_redirect_uri";`);
  }

}
