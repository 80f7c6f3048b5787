import { loadConfig } from '../../src/config/config';
import { WORKER_POOL_MIN, withWorkerPoolFloor } from '../../src/config/database-pool';
import { startRelayWorker } from '../../src/worker/worker';
import { createTestContainer, TEST_SECRETS, type TestContainer } from '../support/test-env';

/**
 * A worker process keeps a floor of open connections (docs/delivery.md "Where a fast delivery's time goes beside a
 * noise burst"): a destination's burst of attempts after a quiet spell found a pool of one or two connections and
 * opened the rest one by one while another destination's attempt queued behind them.
 */
type Pool = { numUsed(): number; numFree(): number; numPendingCreates(): number };

describe('the worker process database pool', () => {
  let t: TestContainer;
  afterEach(async () => t?.close());

  it('opens its floor when the worker starts, so a burst of attempts finds warm connections', async () => {
    t = await createTestContainer({ DATABASE_POOL_MIN: '6' });
    const knex = t.container.orm.em.getConnection().getKnex();
    const pool = (knex.client as { pool: Pool }).pool;
    const open = () => pool.numUsed() + pool.numFree() + pool.numPendingCreates();
    expect(open()).toBeLessThan(6);
    const worker = await startRelayWorker(t.container);
    try {
      expect(pool.numFree() + pool.numUsed()).toBeGreaterThanOrEqual(6);
      const { rows } = await knex.raw('select count(*)::int as n from pg_stat_activity where datname = current_database()');
      expect(rows[0].n).toBeGreaterThanOrEqual(6);
    } finally {
      await worker.stop();
    }
  });

  it('defaults the floor to WORKER_POOL_MIN in processes that run the worker, and leaves a set value alone', () => {
    const base = { NODE_ENV: 'test', ...TEST_SECRETS };
    expect(loadConfig(base).DATABASE_POOL_MIN).toBeUndefined();
    expect(withWorkerPoolFloor(loadConfig(base)).DATABASE_POOL_MIN).toBe(WORKER_POOL_MIN);
    expect(withWorkerPoolFloor(loadConfig({ ...base, DATABASE_POOL_MIN: '0' })).DATABASE_POOL_MIN).toBe(0);
  });
});
