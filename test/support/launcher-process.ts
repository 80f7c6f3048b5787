import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';
import { freePort } from './free-port';

const REPO = path.resolve(__dirname, '..', '..');

/** `relay start` as a user runs it: no DATABASE_URL / TEMPORAL_ADDRESS, so it starts its own PostgreSQL and Temporal. */
export interface Launched {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

/** The settings of a launcher on free ports and the given data directory. */
export async function launcherEnv(dataDir: string): Promise<Record<string, string>> {
  return {
    RELAY_DATA_DIR: dataDir,
    PORT: String(await freePort()),
    RELAY_PG_PORT: String(await freePort()),
    RELAY_TEMPORAL_PORT: String(await freePort()),
    RELAY_TEMPORAL_UI_PORT: String(await freePort()),
  };
}

/**
 * `node bin/relay.js start`. With `terminal`, it leads its own process group, as a shell's
 * foreground job does, so that `interrupt` can send SIGINT to the whole group like Ctrl+C.
 */
export function launch(env: Record<string, string>, opts: { terminal?: boolean } = {}): Launched {
  const { DATABASE_URL: _db, TEMPORAL_ADDRESS: _t, ...inherited } = process.env;
  const child = spawn(process.execPath, [path.join(REPO, 'bin', 'relay.js'), 'start'], {
    cwd: REPO,
    env: { ...inherited, NODE_ENV: 'development', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: opts.terminal === true,
  });
  let output = '';
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()));
  return { child, output: () => output, exited: new Promise<number | null>((resolve) => child.once('exit', resolve)) };
}

export async function waitReady(env: Record<string, string>, launched: Launched): Promise<unknown> {
  const deadline = Date.now() + 150_000;
  while (Date.now() < deadline) {
    if (launched.child.exitCode !== null) throw new Error(`launcher exited:\n${launched.output()}`);
    try {
      const res = await fetch(`http://127.0.0.1:${env.PORT}/readyz`);
      // Ready, and the start-up banner printed (it comes once the worker runs too).
      if (res.status === 200 && launched.output().includes('Press Ctrl+C')) return res.json();
    } catch {
      /* not up yet */
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`not ready in time:\n${launched.output()}`);
}

/**
 * Ctrl+C (to the launcher, or to its whole process group when it was launched as a terminal's
 * job), then SIGKILL if it has not stopped in 30 s; resolves with the exit code.
 */
export async function interrupt(launched: Launched): Promise<number | null> {
  const { child } = launched;
  if (child.exitCode === null && child.signalCode === null) process.kill(isGroupLeader(child.pid!) ? -child.pid! : child.pid!, 'SIGINT');
  const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
  const code = await launched.exited;
  clearTimeout(timer);
  return code;
}

function isGroupLeader(pid: number): boolean {
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return false;
  }
}
