import type { Pool } from 'pg';
import { SecretBox } from '../common/secret-box';
import { activeSecrets, EndpointCache } from './endpoint-cache';

const box = new SecretBox([{ id: 'k', key: Buffer.alloc(32, 1) }]);

/** A pool that answers the endpoint query from `rows` (filters: none) and counts queries; `gate` holds answers back. */
function fakePool(rows: Record<string, Record<string, unknown>>) {
  const state = { queries: 0, gate: Promise.resolve() };
  const pool = {
    query: async ({ name, values }: { name: string; values: unknown[] }) => {
      state.queries++;
      // Reads first, answers later: what a query that raced a commit sees.
      const row = name === 'ingress_endpoint' ? rows[values[0] as string] : undefined;
      await state.gate;
      return { rows: row ? [{ ...row }] : [] };
    },
  } as unknown as Pool;
  return { pool, state };
}

const row = (id: string, active = true) => ({
  id, slug: id, project_id: 'p', organization_id: 'o', plan: 'free', is_active: active, archived_at: null, is_integration: false,
  provider: null, event_type_header: null, event_type_path: null, typing_rules: [], signing_secret_enc: box.seal('s1'),
  previous_signing_secret_enc: box.seal('s0'), previous_secret_expires_at: new Date(Date.now() + 60_000),
});

describe('EndpointCache', () => {
  it('serves hits from memory, unknown slugs included, until invalidated', async () => {
    const rows = { a: row('a') };
    const { pool, state } = fakePool(rows);
    const cache = new EndpointCache(pool, box);
    expect((await cache.get('a'))?.isActive).toBe(true);
    expect(await cache.get('nope')).toBeNull();
    const before = state.queries;
    await cache.get('a');
    await cache.get('nope');
    expect(state.queries).toBe(before);
    rows.a = row('a', false);
    cache.invalidate('a');
    await Promise.resolve();
    expect((await cache.get('a'))?.isActive).toBe(false);
    cache.close();
  });

  it('does not keep a load that was in flight when an invalidation arrived', async () => {
    const rows = { a: row('a') };
    const { pool, state } = fakePool(rows);
    const cache = new EndpointCache(pool, box);
    let release!: () => void;
    state.gate = new Promise((r) => (release = r));
    const stale = cache.get('a');
    rows.a = row('a', false);
    cache.invalidate('a');
    release();
    expect((await stale)?.isActive).toBe(true);
    await new Promise((r) => setImmediate(r));
    expect((await cache.get('a'))?.isActive).toBe(false);
    cache.close();
  });

  it('expires entries after the TTL', async () => {
    const { pool, state } = fakePool({ a: row('a') });
    // lru-cache reads a start time of 0 as "none": the clock starts later.
    const clock = { ms: 10_000, now: () => clock.ms };
    const cache = new EndpointCache(pool, box, { ttlMs: 1000, clock });
    await cache.get('a');
    const before = state.queries;
    clock.ms = 10_500;
    await cache.get('a');
    expect(state.queries).toBe(before);
    clock.ms = 11_500;
    await cache.get('a');
    expect(state.queries).toBeGreaterThan(before);
    cache.close();
  });

  it('keeps the endpoints in use when a flood of unknown slugs fills it (least recently used go first)', async () => {
    const { pool, state } = fakePool({ a: row('a') });
    const cache = new EndpointCache(pool, box, { maxEntries: 3 });
    await cache.get('a');
    const before = state.queries;
    for (const slug of ['x1', 'x2', 'x3', 'x4']) {
      await cache.get(slug);
      await cache.get('a');
    }
    // One query per unknown slug; `a`, read between them, was never evicted and reloaded.
    expect(state.queries).toBe(before + 4);
    await cache.get('x1');
    expect(state.queries).toBe(before + 5);
    cache.close();
  });

  it('lists the previous secret only during its overlap', async () => {
    const { pool } = fakePool({ a: row('a') });
    const cache = new EndpointCache(pool, box);
    const endpoint = (await cache.get('a'))!;
    expect(activeSecrets(endpoint)).toEqual(['s1', 's0']);
    expect(activeSecrets(endpoint, Date.now() + 120_000)).toEqual(['s1']);
    cache.close();
  });
});
