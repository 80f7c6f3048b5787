import type { AppContainer } from '../app/container';
import { DependencyState, jitteredBackoff, shortError } from '../common/backoff';
import { ConfigError } from '../config/config-error';
import { type RelayWorker, startRelayWorker } from './worker';

export type WorkerState = 'waiting' | 'running' | 'stopped';

const supervisors = new WeakMap<AppContainer, WorkerSupervisor>();

/** The state of the worker this process runs, if it runs one (`/readyz` reports it). */
export function workerStateOf(container: AppContainer): WorkerState | undefined {
  return supervisors.get(container)?.state;
}

/**
 * Keeps this process's Temporal worker running for as long as the process lives
 * (docs/internals/delivery.md "When Temporal or PostgreSQL is away"): connects at start and again
 * after the worker stops on its own, with jittered backoff (1 s doubling to 30 s), logging
 * one line per change of state. A setting the server refuses (a ConfigError) at the first
 * attempt stops start-up; every other failure is waited out.
 */
export class WorkerSupervisor {
  state: WorkerState = 'waiting';
  private current: RelayWorker | null = null;
  private stopping = false;
  private wake: (() => void) | null = null;
  private loop: Promise<void> = Promise.resolve();
  private readonly temporal: DependencyState;
  private readonly backoff = jitteredBackoff();

  constructor(
    private readonly container: AppContainer,
    private readonly opts: { taskQueue?: string; onRunning(worker: RelayWorker, first: boolean): void },
  ) {
    this.temporal = new DependencyState(container.log);
    supervisors.set(container, this);
  }

  /** Makes the first attempt (a ConfigError from it throws); the worker then runs, or keeps being retried, in the background. */
  async start(): Promise<void> {
    const worker = await this.connect(true);
    this.loop = this.supervise(worker);
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.wake?.();
    await this.current?.stop();
    await this.loop;
    this.state = 'stopped';
  }

  private async connect(first: boolean): Promise<RelayWorker | null> {
    try {
      return await startRelayWorker(this.container, { taskQueue: this.opts.taskQueue });
    } catch (err) {
      if (first && err instanceof ConfigError) throw err;
      this.temporal.failed(err, `Temporal unreachable at ${this.container.config.TEMPORAL_ADDRESS}: the worker retries with backoff until it answers; deliveries wait, nothing is lost`);
      return null;
    }
  }

  private async supervise(worker: RelayWorker | null): Promise<void> {
    let started = false;
    while (!this.stopping) {
      if (!worker) {
        await this.sleep(this.backoff.next());
        if (this.stopping) return;
        worker = await this.connect(false);
        continue;
      }
      this.backoff.reset();
      this.current = worker;
      this.state = 'running';
      this.temporal.succeeded('Temporal answers again: worker running, delivering');
      this.opts.onRunning(worker, !started);
      started = true;
      const ended = await worker.run.then(
        () => null,
        (err: unknown) => err,
      );
      this.current = null;
      if (this.stopping) return;
      // The worker ends only on a fatal error (e.g. Temporal away for longer than its own retries).
      this.state = 'waiting';
      this.temporal.failed(ended ?? new Error('the worker stopped'), 'the Temporal worker stopped (Temporal lost?): reconnecting with backoff; deliveries wait, nothing is lost');
      this.container.log.debug({ error: shortError(ended) }, 'worker run ended');
      await worker.stop().catch(() => undefined);
      worker = null;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      function done() {
        clearTimeout(timer);
        resolve();
      }
      this.wake = done;
    });
  }
}
