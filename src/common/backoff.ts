import type { Logger } from './logger';

/**
 * Exponential backoff with jitter: the n-th wait is a random time between half and all of
 * min(maxMs, baseMs * 2^n), so processes that lost the same dependency do not all come back
 * to it in the same instant.
 */
export function jitteredBackoff(opts: { baseMs?: number; maxMs?: number } = {}, random: () => number = Math.random): { next(): number; reset(): void } {
  const baseMs = opts.baseMs ?? 1000;
  const maxMs = opts.maxMs ?? 30_000;
  let n = 0;
  return {
    next() {
      const cap = Math.min(maxMs, baseMs * 2 ** Math.min(n++, 30));
      return Math.round(cap / 2 + (random() * cap) / 2);
    },
    reset() {
      n = 0;
    },
  };
}

/** The first line of an error's message: what a log line about a dependency's state needs, not its stack. */
export function shortError(err: unknown): string {
  return String((err as Error)?.message ?? err).split('\n')[0].slice(0, 300);
}

/**
 * Logs only the changes of state of something that fails and recovers (a dependency away, a
 * loop that cannot run): one warning when it starts failing (the first error's message, no
 * stack), one line when it works again (with how long it failed). Failures in between are
 * logged at debug level.
 */
export class DependencyState {
  private downSince: number | null = null;

  constructor(private readonly log: Logger) {}

  failed(err: unknown, message: string): void {
    if (this.downSince === null) {
      this.downSince = Date.now();
      this.log.warn({ error: shortError(err) }, message);
    } else {
      this.log.debug({ error: shortError(err) }, message);
    }
  }

  /** Logs `message` when this ends a failure; returns whether it did. */
  succeeded(message: string): boolean {
    if (this.downSince === null) return false;
    const seconds = Math.round((Date.now() - this.downSince) / 1000);
    this.downSince = null;
    this.log.info({ failedSeconds: seconds }, `${message} (after ${seconds} s)`);
    return true;
  }
}

/**
 * Runs `attempt` (which needs `what`) until it succeeds, waiting a jittered backoff between
 * tries and logging only the changes of state. An error `isFatal` says cannot pass by waiting (a
 * refused setting) is thrown at once.
 */
export async function retryUntilUp<T>(log: Logger, what: string, attempt: () => Promise<T>, isFatal: (err: unknown) => boolean): Promise<T> {
  const state = new DependencyState(log);
  const backoff = jitteredBackoff();
  for (;;) {
    try {
      const result = await attempt();
      state.succeeded(`${what} answers again`);
      return result;
    } catch (err) {
      if (isFatal(err)) throw err;
      state.failed(err, `${what} unreachable; retrying with backoff until it answers`);
    }
    await new Promise((resolve) => setTimeout(resolve, backoff.next()));
  }
}
