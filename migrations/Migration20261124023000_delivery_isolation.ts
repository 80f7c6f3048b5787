import { Migration } from '@mikro-orm/migrations';

/**
 * Delivery isolation (docs/internals/delivery.md "Capacity and isolation"):
 * - `destinations.max_concurrency`: attempts in flight per destination across every worker (null: the default);
 * - `destination_leases`: one row per attempt in flight (UNLOGGED: soft state, lost leases only free capacity);
 * - `destination_circuits`: the circuit breaker of each destination that ever failed to connect;
 * - `relay_admit_attempt` / `relay_finish_attempt`: admission and release in one round trip each, serialized per
 *   destination by a transaction-scoped advisory lock, so the limit holds across processes;
 * - status `skipped`: a `cli` delivery whose CLI was away or paused (not a failure, not dead-lettered);
 * - `deliveries_pending_idx`: the fair dispatcher's per-destination queue (queued deliveries in arrival order).
 */
export class Migration20261124023000_delivery_isolation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table "destinations" add column "max_concurrency" int null;`);
    this.addSql(`alter table "deliveries" drop constraint if exists "deliveries_status_check";`);
    this.addSql(`alter table "deliveries" add constraint "deliveries_status_check" check ("status" in ('queued', 'retrying', 'success', 'failed', 'canceled', 'skipped'));`);
    this.addSql(`alter table "delivery_attempts" drop constraint if exists "delivery_attempts_status_check";`);
    this.addSql(
      `alter table "delivery_attempts" add constraint "delivery_attempts_status_check" check ("status" in ('queued', 'retrying', 'success', 'failed', 'canceled', 'skipped'));`,
    );
    // Ordered by event (arrival), not by delivery id: ids made in one fan-out statement share a millisecond and are random within it.
    this.addSql(`create index "deliveries_pending_idx" on "deliveries" ("destination_id", "event_id") where "status" = 'queued';`);

    this.addSql(`create unlogged table "destination_leases" (
      "delivery_id" uuid not null primary key,
      "destination_id" uuid not null,
      "expires_at" timestamptz not null);`);
    this.addSql(`create index "destination_leases_destination_idx" on "destination_leases" ("destination_id", "expires_at");`);

    this.addSql(`create table "destination_circuits" (
      "destination_id" uuid not null primary key references "destinations" ("id") on delete cascade,
      "state" text not null default 'closed' check ("state" in ('closed', 'open', 'half_open')),
      "consecutive_failures" int not null default 0,
      "opened_at" timestamptz null,
      "next_probe_at" timestamptz null,
      "cooldown_seconds" int not null default 0,
      "probe_delivery_id" uuid null,
      "probe_expires_at" timestamptz null,
      "last_error" text null,
      "updated_at" timestamptz not null default now());`);

    // Verdicts: admitted, probe (the one attempt a cooled-down circuit lets through), throttled (over max_concurrency),
    // deferred (circuit open, or a probe in flight: retry_at says until when).
    this.addSql(`create function relay_admit_attempt(p_destination uuid, p_delivery uuid, p_default_limit int, p_lease_seconds int)
      returns table (verdict text, retry_at timestamptz) language plpgsql as $$
      declare
        c destination_circuits%rowtype;
        lim int;
        live int;
        lease_end timestamptz := now() + make_interval(secs => p_lease_seconds);
      begin
        perform pg_advisory_xact_lock(hashtextextended(p_destination::text, 0));
        -- The same delivery already holds a lease (its activity is retried after a crash): it keeps it.
        update destination_leases set expires_at = lease_end where delivery_id = p_delivery;
        if found then
          return query select 'admitted'::text, null::timestamptz;
          return;
        end if;
        select * into c from destination_circuits where destination_id = p_destination;
        if found and c.state <> 'closed' then
          if c.state = 'open' and now() < c.next_probe_at then
            return query select 'deferred'::text, c.next_probe_at;
            return;
          end if;
          if c.state = 'half_open' and c.probe_expires_at > now() then
            return query select 'deferred'::text, least(c.probe_expires_at, now() + interval '5 seconds');
            return;
          end if;
          update destination_circuits set state = 'half_open', probe_delivery_id = p_delivery, probe_expires_at = lease_end, updated_at = now()
           where destination_id = p_destination;
          insert into destination_leases (delivery_id, destination_id, expires_at) values (p_delivery, p_destination, lease_end);
          return query select 'probe'::text, null::timestamptz;
          return;
        end if;
        select coalesce(max_concurrency, p_default_limit) into lim from destinations where id = p_destination;
        delete from destination_leases where destination_id = p_destination and expires_at <= now();
        select count(*) into live from destination_leases where destination_id = p_destination;
        if live >= lim then
          return query select 'throttled'::text, null::timestamptz;
          return;
        end if;
        insert into destination_leases (delivery_id, destination_id, expires_at) values (p_delivery, p_destination, lease_end);
        return query select 'admitted'::text, null::timestamptz;
      end $$;`);

    // p_reachable: true when the destination answered (any HTTP status), false for a connection error or a timeout,
    // null when the attempt says nothing about the destination (a transform error, a skipped CLI forward).
    // Returns the circuit transition it made: opened, reopened, closed, or null.
    this.addSql(`create function relay_finish_attempt(p_destination uuid, p_delivery uuid, p_reachable boolean, p_error text,
        p_threshold int, p_cooldown_seconds int, p_max_cooldown_seconds int)
      returns text language plpgsql as $$
      declare
        c destination_circuits%rowtype;
        was_probe boolean;
        cooldown int;
      begin
        delete from destination_leases where delivery_id = p_delivery;
        select * into c from destination_circuits where destination_id = p_destination;
        if not found and p_reachable is not false then
          return null; -- the hot path: a healthy destination has no circuit row
        end if;
        perform pg_advisory_xact_lock(hashtextextended(p_destination::text, 0));
        select * into c from destination_circuits where destination_id = p_destination for update;
        was_probe := found and c.probe_delivery_id = p_delivery;
        if p_reachable is null then
          if was_probe then -- the probe proved nothing: let the next attempt probe
            update destination_circuits set state = 'open', next_probe_at = now(), probe_delivery_id = null, probe_expires_at = null, updated_at = now()
             where destination_id = p_destination;
          end if;
          return null;
        end if;
        if p_reachable then
          if c.state = 'closed' and c.consecutive_failures = 0 then
            return null;
          end if;
          update destination_circuits set state = 'closed', consecutive_failures = 0, opened_at = null, next_probe_at = null,
                 cooldown_seconds = 0, probe_delivery_id = null, probe_expires_at = null, updated_at = now()
           where destination_id = p_destination;
          return case when c.state <> 'closed' then 'closed' end;
        end if;
        if c.destination_id is null then
          insert into destination_circuits (destination_id, consecutive_failures, last_error) values (p_destination, 1, p_error)
          returning * into c;
        else
          update destination_circuits set consecutive_failures = consecutive_failures + 1, last_error = p_error, updated_at = now()
           where destination_id = p_destination returning * into c;
        end if;
        if was_probe then
          cooldown := least(greatest(c.cooldown_seconds, p_cooldown_seconds) * 2, p_max_cooldown_seconds);
          update destination_circuits set state = 'open', cooldown_seconds = cooldown, next_probe_at = now() + make_interval(secs => cooldown),
                 probe_delivery_id = null, probe_expires_at = null, updated_at = now()
           where destination_id = p_destination;
          return 'reopened';
        end if;
        if c.state = 'closed' and c.consecutive_failures >= p_threshold then
          update destination_circuits set state = 'open', opened_at = now(), cooldown_seconds = p_cooldown_seconds,
                 next_probe_at = now() + make_interval(secs => p_cooldown_seconds), updated_at = now()
           where destination_id = p_destination;
          return 'opened';
        end if;
        return null;
      end $$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function relay_finish_attempt(uuid, uuid, boolean, text, int, int, int);`);
    this.addSql(`drop function relay_admit_attempt(uuid, uuid, int, int);`);
    this.addSql(`drop table "destination_circuits";`);
    this.addSql(`drop table "destination_leases";`);
    this.addSql(`drop index "deliveries_pending_idx";`);
    this.addSql(`delete from "delivery_attempts" where "status" = 'skipped';`);
    this.addSql(`update "deliveries" set "status" = 'failed' where "status" = 'skipped';`);
    this.addSql(`alter table "destinations" drop column "max_concurrency";`);
  }
}
