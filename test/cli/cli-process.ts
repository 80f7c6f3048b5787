import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
export const RELAY_BIN = path.join(REPO, 'bin', 'relay.js');

/** A user's config directory for the CLI (`XDG_CONFIG_HOME`), and where its config file lands. */
export function tempConfigHome(): { home: string; file: string; cleanup(): void } {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'relay-cli-'));
  return { home, file: path.join(home, 'relay', 'config.json'), cleanup: () => fs.rmSync(home, { recursive: true, force: true }) };
}

export interface CliRun {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Resolves once the CLI has exited and its stdout and stderr have ended ('exit' may come before the last output). */
  closed: Promise<number | null>;
  /** Resolves once stdout matches `pattern` (rejects if the CLI exits first or after `timeoutMs`). */
  waitFor(pattern: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  stop(): Promise<number | null>;
}

/** `node bin/relay.js <args>` as a user runs it, with its own config directory. */
export function runCli(args: string[], env: Record<string, string>, opts: { stdin?: string } = {}): CliRun {
  const { RELAY_API_URL: _u, RELAY_EMAIL: _e, RELAY_PASSWORD: _p, NO_COLOR: _c, ...inherited } = process.env;
  const child = spawn(process.execPath, [RELAY_BIN, ...args], { env: { ...inherited, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  if (opts.stdin !== undefined) child.stdin!.end(opts.stdin);
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const closed = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    exited,
    closed,
    waitFor: async (pattern, timeoutMs = 20_000) => {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const match = stdout.match(pattern);
        if (match) return match;
        if (child.exitCode !== null) throw new Error(`the CLI exited (${child.exitCode}) before ${pattern}:\n${stdout}\n${stderr}`);
        if (Date.now() > deadline) throw new Error(`no ${pattern} within ${timeoutMs} ms:\n${stdout}\n${stderr}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    stop: async () => {
      if (child.exitCode === null) child.kill('SIGINT');
      return exited;
    },
  };
}
