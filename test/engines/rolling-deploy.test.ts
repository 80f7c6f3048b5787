import { createContainer, type AppContainer } from '../../src/app/container';
import { createLogger } from '../../src/common/logger';
import { runRollingDeploy } from '../support/rolling-deploy';
import { createTestDatabase, type TestDatabase, testConfig } from '../support/test-env';

/**
 * Issue 20.4, the short version (`npm run bench:rolling` is the long one): two API and
 * two worker processes restarted one at a time with SIGTERM under steady traffic
 * through a balancer that follows /readyz. Nothing acknowledged is lost, no process
 * answers 5xx once it has begun draining, and every delivery ends.
 */
describe('a rolling deploy under traffic', () => {
  let db: TestDatabase;
  let container: AppContainer;

  beforeAll(async () => {
    db = await createTestDatabase();
    container = await createContainer(testConfig({ DATABASE_URL: db.url }), createLogger('silent'));
  });
  afterAll(async () => {
    await container?.close();
    await db?.drop();
  });

  it('loses nothing and answers no 5xx while processes restart', async () => {
    const lines: string[] = [];
    const result = await runRollingDeploy({
      container,
      databaseUrl: db.url,
      rate: 10,
      seconds: 20,
      drainDelayMs: 1500,
      healthCheckMs: 200,
      log: (line) => lines.push(line),
    });
    process.stderr.write(`rolling deploy: ${JSON.stringify(result)}\n${lines.join('\n')}\n`);
    expect(result.restarts.map((r) => [r.process, r.exitCode])).toEqual([
      ['api-1', 0],
      ['api-2', 0],
      ['worker-1', 0],
      ['worker-2', 0],
    ]);
    // Each API process kept answering after SIGTERM (its drain window), and never with a 5xx.
    expect(result.servedWhileDraining).toBeGreaterThan(0);
    expect(result.answers5xxWhileDraining).toBe(0);
    expect(result.answers5xx).toBe(0);
    expect(result.connectionErrors).toBe(0);
    expect(result.acknowledged).toBe(result.sent);
    expect(result.notTerminal).toBe(0);
    expect(result.lost).toBe(0);
    expect(result.statuses).toEqual({ success: result.acknowledged });
  }, 300_000);
});
