import { Migration } from '@mikro-orm/migrations';

/**
 * Issues (docs/alerts.md#issues): failures grouped by destination and cause.
 * - `issues`: one row per episode; at most one not-resolved issue per (destination, cause);
 * - `issue_events`: the events an issue affected (what its retry action replays);
 * - `destinations.open_issues`: how many of its issues are open or acknowledged, read with the
 *   attempt's context so that a success costs nothing more unless the destination has some;
 * - the attempt's effects (relay_attempt_effects, replaced here) group a failure into its issue and
 *   count a success towards resolving the destination's issues; relay_set_issue_state is a user's change.
 * Every change to a destination's issues runs under a transaction-scoped advisory lock on the
 * destination ('issues:' + id), taken before any other row of the destination.
 */
export class Migration20261126112924_issues extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create table "issues" (
      "id" uuid not null default relay_uuidv7() primary key,
      "project_id" uuid not null references "projects" ("id") on delete cascade,
      "destination_id" uuid not null references "destinations" ("id") on delete cascade,
      "cause" text not null,
      "state" text not null default 'open' check ("state" in ('open', 'acknowledged', 'resolved', 'ignored')),
      "first_seen_at" timestamptz not null default now(),
      "last_seen_at" timestamptz not null default now(),
      "failure_count" int not null default 1,
      "event_count" int not null default 1,
      "last_status_code" int null,
      "last_error" text null,
      "success_streak" int not null default 0,
      "resolved_at" timestamptz null,
      "resolved_by" text null check ("resolved_by" in ('auto', 'user')),
      "created_at" timestamptz not null default now(),
      "updated_at" timestamptz not null default now());`);
    this.addSql(`create unique index "issues_active_idx" on "issues" ("destination_id", "cause") where "state" <> 'resolved';`);
    this.addSql(`create index "issues_project_idx" on "issues" ("project_id", "id");`);
    this.addSql(`create index "issues_destination_idx" on "issues" ("destination_id", "id");`);
    this.addSql(`create table "issue_events" (
      "issue_id" uuid not null references "issues" ("id") on delete cascade,
      "event_id" uuid not null references "events" ("id") on delete cascade,
      primary key ("issue_id", "event_id"));`);
    this.addSql(`create index "issue_events_event_idx" on "issue_events" ("event_id");`);
    this.addSql(`alter table "destinations" add column "open_issues" int not null default 0;`);

    this.addSql(`create function relay_issue_data(i issues) returns jsonb language sql stable as $$
      select jsonb_build_object(
        'destination', (select jsonb_build_object('id', t.id, 'name', t.name, 'type', t.type) from destinations t where t.id = i.destination_id),
        'issue', jsonb_build_object('id', i.id, 'cause', i.cause, 'state', i.state, 'first_seen_at', relay_iso(i.first_seen_at),
          'last_seen_at', relay_iso(i.last_seen_at), 'failure_count', i.failure_count, 'event_count', i.event_count,
          'last_status_code', i.last_status_code, 'last_error', i.last_error, 'resolved_at', relay_iso(i.resolved_at), 'resolved_by', i.resolved_by))
    $$;`);
    this.addSql(`create function relay_count_open_issues(p_destination uuid) returns void language sql as $$
      update destinations t set open_issues = n.count
        from (select count(*)::int as count from issues where destination_id = p_destination and state in ('open', 'acknowledged')) n
       where t.id = p_destination and t.open_issues <> n.count
    $$;`);
    this.addSql(`create function relay_issue_resolved(i issues) returns void language sql as $$
      select relay_emit_operational(i.project_id, 'relay.issue.resolved', 'issue:' || i.destination_id || ':' || i.cause, relay_issue_data(i))
    $$;`);

    // A failed attempt (p: project_id, destination_id, cause, event_id, event_type, status_code, error, system): into the
    // destination's active issue of that cause, or a new one (relay.issue.opened). Any failure restarts the count of
    // successes that resolves the destination's issues.
    this.addSql(`create function relay_issue_failure(p jsonb) returns void language plpgsql as $$
      declare
        dest uuid := (p->>'destination_id')::uuid;
        v_cause text := p->>'cause';
        i issues%rowtype;
        new_event boolean;
      begin
        perform pg_advisory_xact_lock(hashtextextended('issues:' || dest, 0));
        update issues set success_streak = 0 where destination_id = dest and state in ('open', 'acknowledged') and success_streak <> 0;
        select * into i from issues where destination_id = dest and cause = v_cause and state <> 'resolved';
        if found then
          insert into issue_events (issue_id, event_id) values (i.id, (p->>'event_id')::uuid) on conflict do nothing;
          new_event := found;
          update issues set failure_count = failure_count + 1, event_count = event_count + new_event::int, last_seen_at = now(),
                 last_status_code = (p->>'status_code')::int, last_error = p->>'error', updated_at = now()
           where id = i.id;
          return;
        end if;
        insert into issues (project_id, destination_id, cause, last_status_code, last_error)
        values ((p->>'project_id')::uuid, dest, v_cause, (p->>'status_code')::int, p->>'error')
        returning * into i;
        insert into issue_events (issue_id, event_id) values (i.id, (p->>'event_id')::uuid);
        perform relay_count_open_issues(dest);
        if not coalesce((p->>'system')::boolean, false) then
          perform relay_emit_operational(i.project_id, 'relay.issue.opened', 'issue:' || dest || ':' || v_cause,
            relay_issue_data(i) || jsonb_build_object('event', jsonb_build_object('id', p->>'event_id', 'type', p->>'event_type')));
        end if;
      end $$;`);

    // A successful attempt of a destination with open or acknowledged issues: p_after successes in a row resolve them.
    this.addSql(`create function relay_issue_success(p_destination uuid, p_after int) returns void language plpgsql as $$
      declare
        i issues%rowtype;
        resolved boolean := false;
      begin
        perform pg_advisory_xact_lock(hashtextextended('issues:' || p_destination, 0));
        for i in
          update issues set success_streak = success_streak + 1, updated_at = now(),
                 state = case when success_streak + 1 >= p_after then 'resolved' else state end,
                 resolved_at = case when success_streak + 1 >= p_after then now() end,
                 resolved_by = case when success_streak + 1 >= p_after then 'auto' end
           where destination_id = p_destination and state in ('open', 'acknowledged')
          returning *
        loop
          if i.state = 'resolved' then
            resolved := true;
            perform relay_issue_resolved(i);
          end if;
        end loop;
        if resolved then perform relay_count_open_issues(p_destination); end if;
      end $$;`);

    // A user's change of state. Returns the issue, or null when leaving 'resolved' would make a second active issue
    // of the same destination and cause (a newer one is open).
    this.addSql(`create function relay_set_issue_state(p_issue uuid, p_state text) returns issues language plpgsql as $$
      declare
        i issues%rowtype;
        dest uuid;
      begin
        select destination_id into dest from issues where id = p_issue;
        perform pg_advisory_xact_lock(hashtextextended('issues:' || dest, 0));
        select * into i from issues where id = p_issue;
        if i.state = p_state then return i; end if;
        if i.state = 'resolved' and exists (select 1 from issues where destination_id = i.destination_id and cause = i.cause and state <> 'resolved') then
          return null;
        end if;
        update issues set state = p_state, success_streak = 0, updated_at = now(),
               resolved_at = case when p_state = 'resolved' then now() end,
               resolved_by = case when p_state = 'resolved' then 'user' end
         where id = p_issue returning * into i;
        if p_state = 'resolved' then perform relay_issue_resolved(i); end if;
        perform relay_count_open_issues(dest);
        return i;
      end $$;`);

    // The attempt's effects (first version: migrations/…_operational_events.ts), now with issues first: their lock is
    // taken before the destination's row (a 410's pause), as relay_set_issue_state does.
    this.addSql(`create or replace function relay_attempt_effects(p jsonb) returns jsonb language plpgsql as $$
      declare
        silent boolean := coalesce((p->>'system')::boolean, false);
        project uuid := (p->>'project_id')::uuid;
        dest_id uuid := (p->>'destination_id')::uuid;
        dest jsonb;
        c destination_circuits%rowtype;
        before jsonb := p->'circuit_before';
        paused boolean := false;
      begin
        if p->>'status' in ('retrying', 'failed') and p->>'cause' is not null then
          perform relay_issue_failure(p);
        elsif p->>'status' = 'success' and coalesce((p->>'open_issues')::int, 0) > 0 then
          perform relay_issue_success(dest_id, (p->>'resolve_after')::int);
        end if;
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
    this.addSql(`drop function relay_set_issue_state(uuid, text);`);
    this.addSql(`drop function relay_issue_success(uuid, int);`);
    this.addSql(`drop function relay_issue_failure(jsonb);`);
    this.addSql(`drop function relay_issue_resolved(issues);`);
    this.addSql(`drop function relay_count_open_issues(uuid);`);
    this.addSql(`drop function relay_issue_data(issues);`);
    this.addSql(`alter table "destinations" drop column "open_issues";`);
    this.addSql(`drop table "issue_events";`);
    this.addSql(`drop table "issues";`);
  }
}
