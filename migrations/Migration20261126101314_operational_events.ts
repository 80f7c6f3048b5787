import { Migration } from '@mikro-orm/migrations';

/**
 * Operational events (docs/operational-events.md):
 * - every project has one system source (`webhook_endpoints.is_system`): made by a trigger when a
 *   project is created, and here for the projects that exist. It has no signing secret and ingress
 *   does not know its slug; the service emits events on it;
 * - `operational_occurrences`: what happened (a dead letter, a circuit transition, a paused
 *   destination…), written by the statement that makes it happen, so it is exactly as durable as
 *   the change itself. The publisher (src/operational-events/operational-event-publisher.ts) turns
 *   occurrences into events on the system source, at most one per coalescing key per window;
 * - `operational_windows`: when each key last got an event;
 * - `relay_attempt_effects(jsonb)`: what recording an attempt emits, called from the recording
 *   statement only when there is something to do (docs/delivery.md).
 */
export class Migration20261126101314_operational_events extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function relay_uuidv7() returns uuid language sql volatile as $$
      select encode(set_bit(set_bit(overlay(uuid_send(gen_random_uuid()) placing
        substring(int8send(floor(extract(epoch from clock_timestamp()) * 1000)::bigint) from 3) from 1 for 6), 52, 1), 53, 1), 'hex')::uuid
    $$;`);
    // ISO 8601 in UTC with milliseconds, as the API writes timestamps.
    this.addSql(`create function relay_iso(t timestamptz) returns text language sql immutable as $$
      select to_char(t at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
    $$;`);

    this.addSql(`alter table "webhook_endpoints" add column "is_system" boolean not null default false, alter column "signing_secret_enc" drop not null;`);
    this.addSql(`create unique index "webhook_endpoints_system_idx" on "webhook_endpoints" ("project_id") where "is_system";`);
    this.addSql(`create function relay_create_system_endpoint() returns trigger language plpgsql as $$
      begin
        insert into webhook_endpoints (id, project_id, name, slug, is_system)
        values (relay_uuidv7(), new.id, 'Operational events', 'relay-system-' || replace(new.id::text, '-', ''), true);
        return null;
      end $$;`);
    this.addSql(`create trigger "projects_system_endpoint" after insert on "projects" for each row execute function relay_create_system_endpoint();`);
    this.addSql(`insert into webhook_endpoints (id, project_id, name, slug, is_system)
      select relay_uuidv7(), p.id, 'Operational events', 'relay-system-' || replace(p.id::text, '-', ''), true from projects p
       where not exists (select 1 from webhook_endpoints e where e.project_id = p.id and e.is_system);`);

    this.addSql(`create table "operational_occurrences" (
      "id" uuid not null default relay_uuidv7() primary key,
      "project_id" uuid not null references "projects" ("id") on delete cascade,
      "type" text not null,
      "coalesce_key" text not null,
      "data" jsonb not null,
      "occurred_at" timestamptz not null default clock_timestamp());`);
    this.addSql(`create index "operational_occurrences_key_idx" on "operational_occurrences" ("project_id", "coalesce_key", "id");`);
    this.addSql(`create table "operational_windows" (
      "project_id" uuid not null references "projects" ("id") on delete cascade,
      "coalesce_key" text not null,
      "emitted_at" timestamptz not null,
      primary key ("project_id", "coalesce_key"));`);

    this.addSql(`create function relay_emit_operational(p_project uuid, p_type text, p_key text, p_data jsonb) returns void language sql as $$
      insert into operational_occurrences (project_id, type, coalesce_key, data) values (p_project, p_type, p_key, p_data);
      select pg_notify('relay_operational', '');
    $$;`);

    // p: what the attempt activity knows (project_id, event_id, event_type, endpoint_id, endpoint_slug, delivery_id,
    // destination_id, attempt_number, status_code, error, gone, system) and what the recording statement adds (status, the
    // circuit transition relay_finish_attempt made, the circuit row as it was before). An attempt of an operational event
    // (system) emits nothing about its own failure: alerts about alerts never cascade.
    this.addSql(`create function relay_attempt_effects(p jsonb) returns jsonb language plpgsql as $$
      declare
        silent boolean := coalesce((p->>'system')::boolean, false);
        project uuid := (p->>'project_id')::uuid;
        dest_id uuid := (p->>'destination_id')::uuid;
        dest jsonb;
        c destination_circuits%rowtype;
        before jsonb := p->'circuit_before';
        paused boolean := false;
      begin
        select jsonb_build_object('id', t.id, 'name', t.name, 'type', t.type) into dest from destinations t where t.id = dest_id;
        if coalesce((p->>'gone')::boolean, false) then
          update destinations set is_active = false, paused_reason = 'receiver_gone', paused_at = now(), updated_at = now()
           where id = dest_id and is_active;
          paused := found;
          if paused and not silent then
            perform relay_emit_operational(project, 'relay.destination.disabled', 'disabled:' || dest_id, jsonb_build_object(
              'destination', dest, 'reason', 'receiver_gone', 'paused_at', relay_iso(now()),
              'status_code', (p->>'status_code')::int, 'error', p->>'error', 'event_id', p->>'event_id', 'delivery_id', p->>'delivery_id'));
          end if;
        end if;
        if p->>'transition' = 'opened' and not silent then
          select * into c from destination_circuits where destination_id = dest_id;
          perform relay_emit_operational(project, 'relay.destination.circuit_opened', 'circuit:' || dest_id, jsonb_build_object(
            'destination', dest, 'failures', c.consecutive_failures, 'since', relay_iso(c.opened_at),
            'next_probe_at', relay_iso(c.next_probe_at), 'last_error', c.last_error));
        elsif p->>'transition' = 'closed' then
          perform relay_emit_operational(project, 'relay.destination.circuit_closed', 'circuit:' || dest_id, jsonb_build_object(
            'destination', dest, 'failures', (before->>'consecutive_failures')::int,
            'since', relay_iso((before->>'opened_at')::timestamptz), 'closed_at', relay_iso(now())));
        end if;
        if p->>'status' = 'failed' and not silent then
          perform relay_emit_operational(project, 'relay.delivery.dead_lettered', 'dead_lettered:' || dest_id, jsonb_build_object(
            'destination', dest,
            'event', jsonb_build_object('id', p->>'event_id', 'type', p->>'event_type', 'endpoint_id', p->>'endpoint_id', 'endpoint_slug', p->>'endpoint_slug'),
            'delivery', jsonb_build_object('id', p->>'delivery_id', 'attempts', (p->>'attempt_number')::int, 'dead_lettered_at', relay_iso(now())),
            'last_attempt', jsonb_build_object('status_code', (p->>'status_code')::int, 'error', p->>'error')));
        end if;
        return jsonb_build_object('paused', paused);
      end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function relay_attempt_effects(jsonb);`);
    this.addSql(`drop function relay_emit_operational(uuid, text, text, jsonb);`);
    this.addSql(`drop table "operational_windows";`);
    this.addSql(`drop table "operational_occurrences";`);
    this.addSql(`drop trigger "projects_system_endpoint" on "projects";`);
    this.addSql(`drop function relay_create_system_endpoint();`);
    this.addSql(`delete from "webhook_endpoints" where "is_system";`);
    this.addSql(`drop index "webhook_endpoints_system_idx";`);
    this.addSql(`alter table "webhook_endpoints" drop column "is_system", alter column "signing_secret_enc" set not null;`);
    this.addSql(`drop function relay_iso(timestamptz);`);
    this.addSql(`drop function relay_uuidv7();`);
  }
}
