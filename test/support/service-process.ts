import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './free-port';
import { TEST_SECRETS, uniqueTaskQueue } from './test-env';

const REPO = path.resolve(__dirname, '..', '..');

export interface ServiceProcess {
  baseUrl: string;
  taskQueue: string;
  child: ChildProcess;
  output(): string;
  /** SIGINT, then waits for exit; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts the service the way a user does (`node bin/relay.js <command>`),
 * pointed at the test's database and the run's Temporal server, and waits
 * until `/readyz` answers 200.
 */
export async function startServiceProcess(opts: {
  databaseUrl: string;
  command?: 'start' | 'api' | 'worker';
  env?: Record<string, string>;
  taskQueue?: string;
  /** A port picked beforehand, when something must know the service's URL before it starts (an OAuth provider's redirect URI). */
  port?: number;
}): Promise<ServiceProcess> {
  const port = opts.port ?? (await freePort());
  const taskQueue = opts.taskQueue ?? uniqueTaskQueue('e2e');
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-e2e-'));
  const child = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), opts.command ?? 'start'], {
    cwd: REPO,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'warn',
      PORT: String(port),
      DATABASE_URL: opts.databaseUrl,
      TEMPORAL_ADDRESS: process.env.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: taskQueue,
      RELAY_DATA_DIR: dataDir,
      ...TEST_SECRETS,
      ...opts.env,
      // Set when debugging a test: every service process it starts logs at this level.
      ...(process.env.RELAY_TEST_SERVICE_LOG_LEVEL ? { LOG_LEVEL: process.env.RELAY_TEST_SERVICE_LOG_LEVEL } : {}),
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  const baseUrl = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited with ${child.exitCode}:\n${output}`);
    try {
      const res = await fetch(`${baseUrl}/readyz`);
      if (res.status === 200) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`service did not become ready in 60 s:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    baseUrl,
    taskQueue,
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      // A graceful stop that does not end in 30 s is reported and then killed, so one hang cannot stall a suite's teardown.
      const hung = setTimeout(() => {
        process.stderr.write(`service process ${child.pid} did not stop within 30 s of SIGINT; killing it\n${output.slice(-2000)}\n`);
        child.kill('SIGKILL');
      }, 30_000);
      const code = await exited.finally(() => clearTimeout(hung));
      fs.rmSync(dataDir, { recursive: true, force: true });
      return code;
    },
  };
}
