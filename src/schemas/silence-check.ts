import type { EntityManager, Knex } from '@mikro-orm/postgresql';
import { sourceRef } from './schema-learner';
import { emitOperational, issueData, recordSourceIssue } from './source-issues';

/**
 * The silence pass (docs/schemas.md "Silence"): sources whose expectation of traffic is not met (no
 * event for longer than their expected or learned interval, counted from their last event, or from
 * when the expectation was set) become silent: a `source_silent` issue and `relay.source.silent`,
 * once per silent spell (the learner ends it with the next event). Cheap: one scan of the sources'
 * activity rows, and for each candidate one index probe of its newest events (the ground truth, in case
 * the learner is behind). One pass at a time across processes, in one transaction.
 */

const PASS_LOCK = "hashtext('relay_silence_check')";

interface DueRow {
  endpoint_id: string;
  project_id: string;
  name: string;
  slug: string;
  silence_alerts: 'learned' | 'expected_interval';
  interval_seconds: number;
  last_event_at: Date | null;
}

export async function checkSilence(knex: Knex, opts: { limit?: number } = {}): Promise<number> {
  return knex.transaction(async (trx) => {
    const { rows: locked } = await trx.raw(`select pg_try_advisory_xact_lock(${PASS_LOCK}) as ok`);
    if (!locked[0].ok) return 0;
    const { rows } = await trx.raw<{ rows: DueRow[] }>(
      `select d.* from (
         select a.endpoint_id, a.project_id, e.name, e.slug, e.silence_alerts, a.last_event_at, a.expectation_since,
                case e.silence_alerts when 'expected_interval' then e.expected_interval_seconds when 'learned' then a.learned_interval_seconds end as interval_seconds
           from source_activity a
           join webhook_endpoints e on e.id = a.endpoint_id
           join projects p on p.id = e.project_id
          where a.silent_since is null and e.silence_alerts <> 'off' and e.is_active and not e.is_system and p.archived_at is null) d
        where d.interval_seconds is not null
          and coalesce(d.last_event_at, d.expectation_since) + make_interval(secs => d.interval_seconds) <= now()
          and not exists (select 1 from events x where x.endpoint_id = d.endpoint_id and x.id >= relay_uuidv7_floor(now() - make_interval(secs => d.interval_seconds)))
        order by d.endpoint_id limit ?`,
      [opts.limit ?? 200],
    );
    let silenced = 0;
    for (const row of rows) {
      // Re-checked on the row as it is now: the learner may have just counted an event of the source.
      const { rows: marked } = await trx.raw<{ rows: Array<{ silent_since: Date }> }>(
        `update source_activity set silent_since = coalesce(last_event_at, expectation_since)
          where endpoint_id = ? and silent_since is null and coalesce(last_event_at, expectation_since) + make_interval(secs => ?) <= now()
          returning silent_since`,
        [row.endpoint_id, row.interval_seconds],
      );
      if (marked.length === 0) continue;
      const since = new Date(marked[0].silent_since).toISOString();
      const { issue } = await recordSourceIssue(trx, {
        projectId: row.project_id,
        endpointId: row.endpoint_id,
        cause: 'source_silent',
        eventType: null,
        eventId: null,
        summary: `no event since ${since}; expected at least one every ${row.interval_seconds} s (${row.silence_alerts})`,
      });
      silenced += 1;
      if (issue.state === 'ignored') continue;
      await emitOperational(trx, row.project_id, 'relay.source.silent', `silence:${row.endpoint_id}`, {
        source: sourceRef({ id: row.endpoint_id, name: row.name, slug: row.slug }),
        expectation: { mode: row.silence_alerts, interval_seconds: row.interval_seconds },
        last_event_at: row.last_event_at ? new Date(row.last_event_at).toISOString() : null,
        silent_since: since,
        issue: issueData(issue),
      });
    }
    return silenced;
  });
}

/** A changed expectation counts from now: a source that has sent nothing is silent one interval after it was set. */
export async function restartExpectation(em: EntityManager, endpoint: { id: string; project: { id: string } }): Promise<void> {
  await em.getConnection().execute(
    `insert into source_activity (endpoint_id, project_id) values (?, ?)
     on conflict (endpoint_id) do update set expectation_since = now()`,
    [endpoint.id, endpoint.project.id],
  );
}
