import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { CLI_STALE_AFTER_MS } from '../cli-sessions/cli-limits';
import type { ProjectContext } from '../common/request-context';
import { getDestination } from '../destinations/destination.service';
import { getEndpoint } from '../endpoints/endpoint.service';
import type { Config } from '../config/config';
import { type EndpointView, toEndpointView } from '../endpoints/endpoint.view';
import { EndpointDestination } from '../links/endpoint-destination.entity';

/**
 * Health of destinations and endpoints over the last 24 hours (issue 18.4), from their
 * delivery attempts: success rate (successful attempts over finished ones: success, failed,
 * or failed with a retry scheduled), p95 latency, the last error, since when it has been
 * failing (the first failure after its last success, while the newest attempt failed), and for
 * a `cli` destination whether a `relay listen` holds it now. The circuit state is on the
 * destination itself (`circuit`). One query per kind and page of ids (DataLoaders, REST lists).
 */

export const resourceHealthView = z.object({
  attempts_24h: z.number().int().describe('Finished attempts in the last 24 h'),
  success_rate_24h: z.number().nullable().describe('0..1; null without finished attempts'),
  p95_latency_ms_24h: z.number().int().nullable(),
  last_error: z.string().nullable().describe('The newest failed attempt\'s error, or its HTTP status'),
  last_error_at: z.iso.datetime().nullable(),
  failing_since: z.iso.datetime().nullable().describe('Set while the newest attempt failed: the first failure after the last success'),
  cli_online: z.boolean().nullable().describe('cli destinations: a relay listen session holds it now; null for other kinds and endpoints'),
});
export type ResourceHealthView = z.infer<typeof resourceHealthView>;

const FAILED = `a.status in ('failed', 'retrying')`;

/** `scope` selects the attempts of one resource `r.id` (correlated to the outer row). */
function healthSql(resources: string, scope: string, cli: string): string {
  return `select r.id,
      s.total, s.ok, s.p95,
      le.error as last_error, le.status_code as last_code, le.created_at as last_error_at,
      case when newest.status in ('failed', 'retrying') then
        (select min(a.created_at) from ${scope} and ${FAILED}
           and a.created_at > coalesce((select max(a.created_at) from ${scope} and a.status = 'success'), '-infinity'))
      end as failing_since,
      ${cli} as cli_online
    from ${resources} r
    left join lateral (
      select count(*)::int as total, count(*) filter (where a.status = 'success')::int as ok,
             percentile_cont(0.95) within group (order by a.latency_ms) as p95
        from ${scope} and a.created_at > now() - interval '24 hours' and a.status in ('success', 'failed', 'retrying')
    ) s on true
    left join lateral (select a.error, a.status_code, a.created_at from ${scope} and ${FAILED} order by a.id desc limit 1) le on true
    left join lateral (select a.status from ${scope} and a.status in ('success', 'failed', 'retrying') order by a.id desc limit 1) newest on true`;
}

const DESTINATIONS = healthSql(
  `(select d.id, d.type from destinations d where d.project_id = ? and d.id = any(?::uuid[]))`,
  `delivery_attempts a where a.destination_id = r.id`,
  `case when r.type = 'cli' then exists (select 1 from cli_sessions c where c.destination_id = r.id and c.heartbeat_at > now() - make_interval(secs => ${CLI_STALE_AFTER_MS / 1000})) end`,
);
const ENDPOINTS = healthSql(
  `(select e.id from webhook_endpoints e where e.project_id = ? and e.id = any(?::uuid[]))`,
  `delivery_attempts a join deliveries dl on dl.id = a.delivery_id where dl.endpoint_id = r.id`,
  'null::boolean',
);

interface Row {
  id: string;
  total: number | null;
  ok: number | null;
  p95: number | null;
  last_error: string | null;
  last_code: number | null;
  last_error_at: Date | null;
  failing_since: Date | null;
  cli_online: boolean | null;
}

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null);

function toView(r: Row | undefined): ResourceHealthView {
  const total = r?.total ?? 0;
  return {
    attempts_24h: total,
    success_rate_24h: total ? (r!.ok ?? 0) / total : null,
    p95_latency_ms_24h: r?.p95 == null ? null : Math.round(r.p95),
    last_error: r?.last_error ?? (r?.last_code ? `HTTP ${r.last_code}` : r?.last_error_at ? 'failed' : null),
    last_error_at: iso(r?.last_error_at ?? null),
    failing_since: iso(r?.failing_since ?? null),
    cli_online: r?.cli_online ?? null,
  };
}

async function healthOf(em: EntityManager, sql: string, projectId: string, ids: readonly string[]): Promise<ResourceHealthView[]> {
  if (ids.length === 0) return [];
  const { rows } = await em.getConnection().getKnex().raw(sql, [projectId, `{${ids.join(',')}}`]);
  const byId = new Map<string, Row>(rows.map((r: Row) => [r.id, r]));
  return ids.map((id) => toView(byId.get(id)));
}

/** Health of destinations of one project, in key order (ids of other projects get an empty health). */
export function destinationHealth(em: EntityManager, projectId: string, ids: readonly string[]): Promise<ResourceHealthView[]> {
  return healthOf(em, DESTINATIONS, projectId, ids);
}

/** Health of endpoints of one project: the attempts of their deliveries, all destinations together. */
export function endpointHealth(em: EntityManager, projectId: string, ids: readonly string[]): Promise<ResourceHealthView[]> {
  return healthOf(em, ENDPOINTS, projectId, ids);
}

/** One destination's health (404 when it is not in the project). */
export async function getDestinationHealth(ctx: ProjectContext, id: string): Promise<ResourceHealthView> {
  await getDestination(ctx, id);
  return (await destinationHealth(ctx.em, ctx.project.id, [id]))[0];
}

/** One endpoint's health (404 when it is not in the project). */
export async function getEndpointHealth(ctx: ProjectContext, id: string): Promise<ResourceHealthView> {
  await getEndpoint(ctx, id);
  return (await endpointHealth(ctx.em, ctx.project.id, [id]))[0];
}

/** The endpoints each destination is linked to (batched for `Destination.linkedEndpoints`), by name. */
export async function linkedEndpointsByDestinationIds(em: EntityManager, config: Pick<Config, 'publicBaseUrl'>, projectId: string, ids: readonly string[]): Promise<EndpointView[][]> {
  const links = await em.find(EndpointDestination, { destination: { $in: [...ids], project: projectId } }, { populate: ['endpoint'], orderBy: { endpoint: { name: 'asc' } } });
  return ids.map((id) => links.filter((l) => l.destination.id === id).map((l) => toEndpointView(l.endpoint, config)));
}
