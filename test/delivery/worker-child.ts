import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { TEST_SECRETS } from '../support/test-env';

const REPO = path.resolve(__dirname, '..', '..');

export interface WorkerChild {
  child: ChildProcess;
  output(): string;
  /** Sends `signal` and waits for the process to exit. */
  kill(signal: NodeJS.Signals): Promise<void>;
}

/**
 * `relay worker` (Temporal worker + outbox dispatcher) as its own process, the
 * way production runs it, so that a test can kill -9 it. Resolves once it logs
 * that it is running.
 */
export async function startWorkerChild(opts: { databaseUrl: string; taskQueue: string; temporalAddress?: string; env?: Record<string, string> }): Promise<WorkerChild> {
  const child = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'worker'], {
    cwd: REPO,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      DATABASE_URL: opts.databaseUrl,
      TEMPORAL_ADDRESS: opts.temporalAddress ?? process.env.TEMPORAL_ADDRESS,
      TEMPORAL_TASK_QUEUE: opts.taskQueue,
      ...TEST_SECRETS,
      ...opts.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    const onData = (d: Buffer) => {
      output += d.toString();
      if (output.includes('"worker running"')) resolve();
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('exit', (code) => reject(new Error(`worker exited with ${code} before running:\n${output}`)));
  });
  return {
    child,
    output: () => output,
    kill: async (signal) => {
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
      await exited;
    },
  };
}
