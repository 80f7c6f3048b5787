import { Migration } from '@mikro-orm/migrations';

export class Migration20261122110041_initial extends Migration {

  override async up(): Promise<void> {
    this.addSql(`create table "events" ("id" uuid not null, "endpoint_id" uuid not null, "project_id" uuid not null, "organization_id" uuid not null, "event_type" text not null default '', "payload" json not null, "headers" json not null, "source_ip" text null, "idempotency_key" text null, "status" text check ("status" in ('received', 'filtered')) not null, "dispatched_at" timestamptz null, "created_at" timestamptz not null default now(), constraint "events_pkey" primary key ("id"));`);
    this.addSql(`create index "events_undispatched_idx" on "events" ("id") where "dispatched_at" is null and "status" = 'received';`);
    this.addSql(`create index "events_project_id_idx" on "events" ("project_id", "id");`);
    this.addSql(`create index "events_endpoint_id_idx" on "events" ("endpoint_id", "id");`);
    this.addSql(`alter table "events" add constraint "events_endpoint_idempotency_key_unique" unique ("endpoint_id", "idempotency_key");`);

    this.addSql(`create table "organizations" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "name" text not null, "plan" text check ("plan" in ('free', 'team', 'growth')) not null default 'free', constraint "organizations_pkey" primary key ("id"));`);

    this.addSql(`create table "users" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "email" text not null, "name" text null, "password_hash" text null, constraint "users_pkey" primary key ("id"));`);
    this.addSql(`alter table "users" add constraint "users_email_unique" unique ("email");`);

    this.addSql(`create table "refresh_tokens" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "user_id" uuid not null, "token_hash" text not null, "family_id" uuid not null, "expires_at" timestamptz not null, "revoked_at" timestamptz null, constraint "refresh_tokens_pkey" primary key ("id"));`);
    this.addSql(`create index "refresh_tokens_user_id_index" on "refresh_tokens" ("user_id");`);
    this.addSql(`alter table "refresh_tokens" add constraint "refresh_tokens_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "projects" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "organization_id" uuid not null, "user_id" uuid not null, "name" text not null, "slug" text not null, "header_prefix" text not null default 'Service', "retention_days" int null, "archived_at" timestamptz null, constraint "projects_pkey" primary key ("id"));`);
    this.addSql(`alter table "projects" add constraint "projects_organization_id_slug_unique" unique ("organization_id", "slug");`);

    this.addSql(`create table "transforms" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "project_id" uuid not null, "name" text not null, "expression" text not null, constraint "transforms_pkey" primary key ("id"));`);
    this.addSql(`create index "transforms_project_id_index" on "transforms" ("project_id");`);

    this.addSql(`create table "oauth_connections" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "project_id" uuid not null, "provider" text check ("provider" in ('codehost_a', 'codehost_b', 'codehost_c', 'chat_a', 'tracker_a', 'tracker_b', 'payments_a', 'chat_b')) not null, "provider_user_id" text null, "provider_username" text null, "scopes" text not null default '', "metadata" jsonb not null default '{}', "access_token_enc" text null, "refresh_token_enc" text null, "token_expires_at" timestamptz null, constraint "oauth_connections_pkey" primary key ("id"));`);
    this.addSql(`create index "oauth_connections_project_id_index" on "oauth_connections" ("project_id");`);

    this.addSql(`create table "message_templates" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "project_id" uuid not null, "name" text not null, "config" jsonb not null, constraint "message_templates_pkey" primary key ("id"));`);
    this.addSql(`create index "message_templates_project_id_index" on "message_templates" ("project_id");`);

    this.addSql(`create table "destinations" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "project_id" uuid not null, "name" text not null, "type" text check ("type" in ('chat_b', 'chat_a', 'chat_c', 'webhook', 'cli')) not null, "webhook_url_enc" text null, "webhook_host" text null, "bot_token_enc" text null, "guild_id" text null, "channel_id" text null, "retry_policy" jsonb not null default '{"max_attempts":7,"backoff":[1,5,30,120,900,3600,21600]}', "event_types" jsonb not null default '[]', "is_active" boolean not null default true, "signing_secret_enc" text null, "previous_signing_secret_enc" text null, "previous_secret_expires_at" timestamptz null, "cli_session" jsonb null, constraint "destinations_pkey" primary key ("id"));`);
    this.addSql(`create index "destinations_project_id_index" on "destinations" ("project_id");`);

    this.addSql(`create table "deliveries" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "event_id" uuid not null, "destination_id" uuid not null, "endpoint_id" uuid not null, "project_id" uuid not null, "replay_of_id" uuid null, "status" text check ("status" in ('queued', 'retrying', 'success', 'failed', 'canceled')) not null default 'queued', "attempt_count" int not null default 0, "next_retry_at" timestamptz null, "workflow_started_at" timestamptz null, "dead_lettered_at" timestamptz null, "completed_at" timestamptz null, constraint "deliveries_pkey" primary key ("id"));`);
    this.addSql(`create index "deliveries_event_id_index" on "deliveries" ("event_id");`);
    this.addSql(`create index "deliveries_dead_letter_idx" on "deliveries" ("project_id", "id") where "dead_lettered_at" is not null;`);
    this.addSql(`create index "deliveries_unstarted_idx" on "deliveries" ("id") where "workflow_started_at" is null;`);
    this.addSql(`create index "deliveries_due_idx" on "deliveries" ("status", "next_retry_at");`);
    this.addSql(`create index "deliveries_destination_id_idx" on "deliveries" ("destination_id", "id");`);

    this.addSql(`create table "delivery_attempts" ("id" uuid not null, "delivery_id" uuid not null, "event_id" uuid not null, "destination_id" uuid not null, "attempt_number" int not null, "status" text check ("status" in ('queued', 'retrying', 'success', 'failed', 'canceled')) not null, "status_code" int null, "response_body" text null, "response_body_truncated" boolean not null default false, "response_headers" jsonb null, "error" text null, "latency_ms" int null, "next_retry_at" timestamptz null, "payload_sent" json null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), constraint "delivery_attempts_pkey" primary key ("id"));`);
    this.addSql(`create index "delivery_attempts_destination_id_idx" on "delivery_attempts" ("destination_id", "id");`);
    this.addSql(`create index "delivery_attempts_event_id_idx" on "delivery_attempts" ("event_id", "id");`);
    this.addSql(`alter table "delivery_attempts" add constraint "delivery_attempts_delivery_id_attempt_number_unique" unique ("delivery_id", "attempt_number");`);

    this.addSql(`create table "organization_members" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "organization_id" uuid not null, "user_id" uuid not null, "role" text check ("role" in ('owner', 'admin', 'developer', 'viewer')) not null, constraint "organization_members_pkey" primary key ("id"));`);
    this.addSql(`create index "organization_members_user_id_index" on "organization_members" ("user_id");`);
    this.addSql(`alter table "organization_members" add constraint "organization_members_organization_id_user_id_unique" unique ("organization_id", "user_id");`);

    this.addSql(`create table "invites" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "organization_id" uuid not null, "email" text not null, "role" text check ("role" in ('owner', 'admin', 'developer', 'viewer')) not null, "token_hash" text not null, "invited_by_id" uuid null, "expires_at" timestamptz not null, "accepted_at" timestamptz null, constraint "invites_pkey" primary key ("id"));`);
    this.addSql(`create index "invites_organization_id_index" on "invites" ("organization_id");`);
    this.addSql(`alter table "invites" add constraint "invites_token_hash_unique" unique ("token_hash");`);

    this.addSql(`create table "api_keys" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "project_id" uuid not null, "name" text not null, "prefix" text not null, "key_hash" text not null, "created_by_id" uuid null, "last_used_at" timestamptz null, "revoked_at" timestamptz null, constraint "api_keys_pkey" primary key ("id"));`);
    this.addSql(`create index "api_keys_project_id_index" on "api_keys" ("project_id");`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_key_hash_unique" unique ("key_hash");`);

    this.addSql(`create table "webhook_endpoints" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "project_id" uuid not null, "name" text not null, "slug" text not null, "signing_secret_enc" text not null, "previous_signing_secret_enc" text null, "previous_secret_expires_at" timestamptz null, "event_type_path" text null, "event_type_header" text null, "typing_rules" jsonb not null default '[]', "is_active" boolean not null default true, "provider" text check ("provider" in ('codehost_a', 'codehost_b', 'codehost_c', 'chat_a', 'tracker_a', 'tracker_b', 'payments_a')) null, "provider_repo" text null, "provider_webhook_id" text null, "oauth_connection_id" uuid null, "is_integration" boolean not null default false, constraint "webhook_endpoints_pkey" primary key ("id"));`);
    this.addSql(`create index "webhook_endpoints_project_id_index" on "webhook_endpoints" ("project_id");`);
    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_slug_unique" unique ("slug");`);

    this.addSql(`create table "filter_groups" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "endpoint_id" uuid not null, "name" text not null, "logic" text check ("logic" in ('AND', 'OR')) not null default 'AND', "is_enabled" boolean not null default true, constraint "filter_groups_pkey" primary key ("id"));`);
    this.addSql(`create index "filter_groups_endpoint_id_index" on "filter_groups" ("endpoint_id");`);

    this.addSql(`create table "filter_conditions" ("id" uuid not null, "filter_id" uuid not null, "field" text not null, "operator" text check ("operator" in ('eq', 'neq', 'contains', 'not_contains', 'exists', 'not_exists', 'regex')) not null, "value" text not null default '', "position" int not null, constraint "filter_conditions_pkey" primary key ("id"));`);
    this.addSql(`create index "filter_conditions_filter_id_index" on "filter_conditions" ("filter_id");`);

    this.addSql(`create table "endpoint_destinations" ("id" uuid not null, "created_at" timestamptz not null default now(), "updated_at" timestamptz not null default now(), "endpoint_id" uuid not null, "destination_id" uuid not null, "template_id" uuid null, "transform_id" uuid null, "routing_rules" jsonb not null default '[]', constraint "endpoint_destinations_pkey" primary key ("id"));`);
    this.addSql(`create index "endpoint_destinations_destination_id_index" on "endpoint_destinations" ("destination_id");`);
    this.addSql(`alter table "endpoint_destinations" add constraint "endpoint_destinations_endpoint_id_destination_id_unique" unique ("endpoint_id", "destination_id");`);

    this.addSql(`alter table "refresh_tokens" add constraint "refresh_tokens_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "projects" add constraint "projects_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "projects" add constraint "projects_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete restrict;`);

    this.addSql(`alter table "transforms" add constraint "transforms_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "oauth_connections" add constraint "oauth_connections_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "message_templates" add constraint "message_templates_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "destinations" add constraint "destinations_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "deliveries" add constraint "deliveries_event_id_foreign" foreign key ("event_id") references "events" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "deliveries" add constraint "deliveries_destination_id_foreign" foreign key ("destination_id") references "destinations" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "delivery_attempts" add constraint "delivery_attempts_delivery_id_foreign" foreign key ("delivery_id") references "deliveries" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "organization_members" add constraint "organization_members_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "organization_members" add constraint "organization_members_user_id_foreign" foreign key ("user_id") references "users" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "invites" add constraint "invites_organization_id_foreign" foreign key ("organization_id") references "organizations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "invites" add constraint "invites_invited_by_id_foreign" foreign key ("invited_by_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "api_keys" add constraint "api_keys_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "api_keys" add constraint "api_keys_created_by_id_foreign" foreign key ("created_by_id") references "users" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_project_id_foreign" foreign key ("project_id") references "projects" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "webhook_endpoints" add constraint "webhook_endpoints_oauth_connection_id_foreign" foreign key ("oauth_connection_id") references "oauth_connections" ("id") on update cascade on delete set null;`);

    this.addSql(`alter table "filter_groups" add constraint "filter_groups_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "filter_conditions" add constraint "filter_conditions_filter_id_foreign" foreign key ("filter_id") references "filter_groups" ("id") on update cascade on delete cascade;`);

    this.addSql(`alter table "endpoint_destinations" add constraint "endpoint_destinations_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "endpoint_destinations" add constraint "endpoint_destinations_destination_id_foreign" foreign key ("destination_id") references "destinations" ("id") on update cascade on delete cascade;`);
    this.addSql(`alter table "endpoint_destinations" add constraint "endpoint_destinations_template_id_foreign" foreign key ("template_id") references "message_templates" ("id") on update cascade on delete set null;`);
    this.addSql(`alter table "endpoint_destinations" add constraint "endpoint_destinations_transform_id_foreign" foreign key ("transform_id") references "transforms" ("id") on update cascade on delete set null;`);

    // Events and attempts keep bare uuid columns for cheap hot-path inserts, but still go when their endpoint goes.
    this.addSql(`alter table "events" add constraint "events_endpoint_id_foreign" foreign key ("endpoint_id") references "webhook_endpoints" ("id") on update cascade on delete cascade;`);
  }

}
