import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { RELAY_BIN } from './cli-process';

export const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

/** One tmux server (its own socket) for a test file: `relay …` in a real terminal, read back with capture-pane. */
export class Terminal {
  private readonly socket = `relay-test-${process.pid}-${Math.random().toString(36).slice(2, 8)}`;

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** Runs the checkout's `relay <args>` in the window `name` (160×40), then prints `EXIT=<code>` and stays, so the exit code can be read. */
  run(name: string, args: string[], env: Record<string, string>): void {
    this.start(name, `cd ${JSON.stringify(path.dirname(path.dirname(RELAY_BIN)))} && env -u RELAY_API_URL -u NO_COLOR`, ['node', RELAY_BIN, ...args], env);
  }

  /** Runs `argv` (an installed `relay`, say) in `cwd` with nothing but `env` (and TERM) in its environment, as `run` does otherwise. */
  runIsolated(name: string, argv: string[], env: Record<string, string>, cwd: string): void {
    this.start(name, `cd ${JSON.stringify(cwd)} && env -i TERM=screen`, argv, env);
  }

  private start(name: string, prefix: string, argv: string[], env: Record<string, string>): void {
    const vars = Object.entries(env).map(([k, v]) => `${k}=${JSON.stringify(v)}`);
    const command = `${prefix} ${vars.join(' ')} ${argv.map((a) => JSON.stringify(a)).join(' ')}; echo "EXIT=$?"; sleep 600`;
    this.tmux('new-session', '-d', '-s', name, '-x', '160', '-y', '40', command);
  }

  keys(name: string, ...keys: string[]): void {
    this.tmux('send-keys', '-t', name, ...keys);
  }

  screen(name: string): string {
    return this.tmux('capture-pane', '-p', '-J', '-t', name, '-S', '-500');
  }

  async waitFor(name: string, pattern: RegExp, timeoutMs = 30_000): Promise<RegExpMatchArray> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = this.screen(name).match(pattern);
      if (match) return match;
      if (Date.now() > deadline) throw new Error(`the screen never showed ${pattern}:\n${this.screen(name)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** Sends `signal` to the command running in window `name` (the child of the pane's shell), e.g. SIGKILL for a kill -9. */
  signal(name: string, signal: NodeJS.Signals): void {
    const shell = this.tmux('list-panes', '-t', name, '-F', '#{pane_pid}').trim();
    const children = execFileSync('ps', ['-o', 'pid=', '--ppid', shell], { encoding: 'utf8' }).split('\n').map((p) => p.trim()).filter(Boolean);
    if (children.length !== 1) throw new Error(`expected one command in window ${name}, found ${children.length}`);
    process.kill(Number(children[0]), signal);
  }

  kill(name: string): void {
    this.tmux('kill-session', '-t', name);
  }

  close(): void {
    try {
      this.tmux('kill-server');
    } catch {
      // never started
    }
  }
}
