import type { EntityManager } from '@mikro-orm/postgresql';
import { LRUCache } from 'lru-cache';
import type { Pool } from 'pg';
import type { SecretBox } from '../common/secret-box';
import { NOTIFY } from '../common/notify-channels';
import type { Condition, EndpointProvider, Logic, Plan, TypingRule } from '../common/types';
import type { FilterGroupSpec } from './filters';

/**
 * Everything ingress needs about an endpoint, kept in memory so that the hot
 * path costs no query: endpoint, project, organization plan, filter groups and
 * decrypted secrets. Entries are dropped when a NOTIFY on `relay_endpoints`
 * says they changed (see the notify* functions below, called by the code that
 * changes them) and after a short TTL as a safety net.
 */
export interface IngressEndpoint {
  id: string;
  slug: string;
  projectId: string;
  organizationId: string;
  plan: Plan;
  /** False also when the project is archived. */
  isActive: boolean;
  isIntegration: boolean;
  provider: EndpointProvider | null;
  eventTypeHeader: string | null;
  eventTypePath: string | null;
  typingRules: TypingRule[];
  filterGroups: FilterGroupSpec[];
  signingSecret: string;
  previousSigningSecret: string | null;
  previousSecretExpiresAt: number | null;
}

/** The secrets that may sign right now: current first, then the previous one during its overlap. */
export function activeSecrets(endpoint: IngressEndpoint, nowMs = Date.now()): string[] {
  const { signingSecret, previousSigningSecret, previousSecretExpiresAt } = endpoint;
  return previousSigningSecret && previousSecretExpiresAt !== null && previousSecretExpiresAt > nowMs
    ? [signingSecret, previousSigningSecret]
    : [signingSecret];
}

/** Payload prefixes on `relay_endpoints`; a bare uuid is an endpoint id (NOTIFY.endpointsChanged). */
const PROJECT_PREFIX = 'project:';
const ORGANIZATION_PREFIX = 'organization:';
const API_KEYS = 'api_keys';

/** The caches of this process: invalidated directly as well, so that this process never waits for the NOTIFY. */
const localCaches = new Set<EndpointCache>();

async function notify(em: EntityManager, payload: string): Promise<void> {
  // em.execute runs inside the caller's transaction when there is one: the NOTIFY is sent at its COMMIT,
  // and undoes anything this process re-read before that commit.
  await em.execute('select pg_notify(?, ?)', [NOTIFY.endpointsChanged, payload]);
  for (const cache of localCaches) cache.invalidate(payload);
}

/** Call after any change to an endpoint, its filter groups/conditions or its secret (create and delete too). */
export function notifyEndpointChanged(em: EntityManager, endpointId: string): Promise<void> {
  return notify(em, endpointId);
}

/** Call after a project is archived/unarchived or deleted. */
export function notifyProjectChanged(em: EntityManager, projectId: string): Promise<void> {
  return notify(em, PROJECT_PREFIX + projectId);
}

/** Call after an organization's plan changes. */
export function notifyOrganizationChanged(em: EntityManager, organizationId: string): Promise<void> {
  return notify(em, ORGANIZATION_PREFIX + organizationId);
}

/** Call after an API key is revoked or deleted. */
export function notifyApiKeysChanged(em: EntityManager): Promise<void> {
  return notify(em, API_KEYS);
}

const ENDPOINT_SQL = `
  select e.id, e.slug, e.project_id, p.organization_id, o.plan, e.is_active, p.archived_at, e.is_integration, e.provider,
         e.event_type_header, e.event_type_path, e.typing_rules, e.signing_secret_enc, e.previous_signing_secret_enc,
         e.previous_secret_expires_at
    from webhook_endpoints e
    join projects p on p.id = e.project_id
    join organizations o on o.id = p.organization_id
   where e.slug = $1 and not e.is_system`; // the system source receives no requests: its slug is unknown to ingress

const FILTERS_SQL = `
  select g.logic, g.is_enabled,
         coalesce(json_agg(json_build_object('field', c.field, 'operator', c.operator, 'value', c.value) order by c.position)
                  filter (where c.id is not null), '[]') as conditions
    from filter_groups g
    left join filter_conditions c on c.filter_id = g.id
   where g.endpoint_id = $1
   group by g.id
   order by g.created_at, g.id`;

/** Bounds memory against floods of unknown slugs or keys: the least recently used entries go first. */
const MAX_ENTRIES = 20_000;

/**
 * One options object for every `get`: lru-cache's default (`getOptions = {}`) would allocate one per
 * call, and this is the ingress hot path.
 */
const GET_OPTIONS: Record<never, never> = {};

export interface EndpointCacheOptions {
  ttlMs?: number;
  maxEntries?: number;
  apiKeyTtlMs?: number;
  /** The clock TTLs are measured on (tests); default `performance`. */
  clock?: { now(): number };
}

export class EndpointCache {
  /**
   * slug → the endpoint's load, pending or done (null: no such endpoint). Storing the promise lets
   * concurrent misses share one load; a hit returns the stored promise as it is (no allocation, no
   * extra async hop). Times are checked on every get (`ttlResolution: 0`: no timer per millisecond).
   */
  private readonly bySlug: LRUCache<string, Promise<IngressEndpoint | null>>;
  private readonly apiKeys: LRUCache<string, { projectId: string | null }>;
  /** Bumped on every invalidation: a load that started before one is not cached. */
  private generation = 0;

  constructor(
    private readonly pool: Pool,
    private readonly secrets: SecretBox,
    { ttlMs = 30_000, apiKeyTtlMs = 10_000, maxEntries = MAX_ENTRIES, clock }: EndpointCacheOptions = {},
  ) {
    this.bySlug = new LRUCache({ max: maxEntries, ttl: ttlMs, ttlResolution: 0, perf: clock });
    this.apiKeys = new LRUCache({ max: maxEntries, ttl: apiKeyTtlMs, ttlResolution: 0, perf: clock });
    localCaches.add(this);
  }

  close(): void {
    localCaches.delete(this);
    this.clear();
  }

  get(slug: string): Promise<IngressEndpoint | null> {
    const hit = this.bySlug.get(slug, GET_OPTIONS);
    if (hit) return hit;
    const generation = this.generation;
    const value = this.load(slug);
    this.bySlug.set(slug, value);
    value.then(
      () => {
        if (generation !== this.generation && this.bySlug.peek(slug) === value) this.bySlug.delete(slug);
      },
      () => {
        if (this.bySlug.peek(slug) === value) this.bySlug.delete(slug);
      },
    );
    return value;
  }

  /** The project of an active `svc_` key (null: unknown or revoked); answers cached briefly. */
  async apiKeyProject(keyHash: string): Promise<string | null> {
    const hit = this.apiKeys.get(keyHash, GET_OPTIONS);
    if (hit) return hit.projectId;
    const generation = this.generation;
    const { rows } = await this.pool.query<{ project_id: string }>({
      name: 'ingress_api_key',
      text: 'select project_id from api_keys where key_hash = $1 and revoked_at is null',
      values: [keyHash],
    });
    const projectId = rows[0]?.project_id ?? null;
    if (generation === this.generation) this.apiKeys.set(keyHash, { projectId });
    return projectId;
  }

  /** Handles one `relay_endpoints` payload. */
  invalidate(payload: string): void {
    this.generation++;
    if (payload === API_KEYS) {
      this.apiKeys.clear();
      return;
    }
    const matches = (e: IngressEndpoint | null) =>
      e === null ||
      e.id === payload ||
      PROJECT_PREFIX + e.projectId === payload ||
      ORGANIZATION_PREFIX + e.organizationId === payload;
    for (const [slug, value] of this.bySlug.entries()) {
      // Pending loads are dropped too: they may have read the old row.
      value.then(
        (e) => {
          if (matches(e) && this.bySlug.peek(slug) === value) this.bySlug.delete(slug);
        },
        () => undefined,
      );
    }
    if (payload.startsWith(PROJECT_PREFIX)) this.apiKeys.clear();
  }

  clear(): void {
    this.generation++;
    this.bySlug.clear();
    this.apiKeys.clear();
  }

  private async load(slug: string): Promise<IngressEndpoint | null> {
    const { rows } = await this.pool.query({ name: 'ingress_endpoint', text: ENDPOINT_SQL, values: [slug] });
    const row = rows[0];
    if (!row) return null;
    const filters = await this.pool.query<{ logic: Logic; is_enabled: boolean; conditions: Condition[] }>({
      name: 'ingress_filters',
      text: FILTERS_SQL,
      values: [row.id],
    });
    return {
      id: row.id,
      slug: row.slug,
      projectId: row.project_id,
      organizationId: row.organization_id,
      plan: row.plan,
      isActive: row.is_active && row.archived_at === null,
      isIntegration: row.is_integration,
      provider: row.provider,
      eventTypeHeader: row.event_type_header,
      eventTypePath: row.event_type_path,
      typingRules: row.typing_rules ?? [],
      filterGroups: filters.rows.map((g) => ({ logic: g.logic, isEnabled: g.is_enabled, conditions: g.conditions })),
      signingSecret: this.secrets.open(row.signing_secret_enc),
      previousSigningSecret: this.secrets.openOptional(row.previous_signing_secret_enc),
      previousSecretExpiresAt: row.previous_secret_expires_at ? new Date(row.previous_secret_expires_at).getTime() : null,
    };
  }
}
