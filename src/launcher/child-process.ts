import type { ChildProcess } from 'node:child_process';

/** `signal` (SIGTERM unless given), then SIGKILL after 10 s; resolves once the process has exited. */
export function stopChild(child: ChildProcess, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    const killTimer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    child.once('exit', () => {
      clearTimeout(killTimer);
      resolve();
    });
    child.kill(signal);
  });
}
