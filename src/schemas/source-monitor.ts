import type { AppContainer } from '../app/container';
import { DependencyState } from '../common/backoff';
import { LEARNER_DEFAULTS, type LearnerOptions, learnSchemas } from './schema-learner';
import { checkSilence } from './silence-check';

export type SourceMonitorDeps = Pick<AppContainer, 'orm' | 'config' | 'log'>;

/**
 * Runs, in a worker process, the learner (a pass every second, and at once again while a backlog
 * remains) and the silence check (every RELAY_SILENCE_CHECK_SECONDS). Both need only PostgreSQL and
 * are safe in any number of processes (each pass takes an advisory lock). Neither is on the ingress
 * or delivery path: a failing pass is logged and tried again at the next tick.
 */
export class SourceMonitor {
  private readonly timers: NodeJS.Timeout[] = [];
  private learning: Promise<void> | null = null;
  private checking: Promise<void> | null = null;
  private stopped = false;
  private readonly learnerState: DependencyState;
  private readonly silenceState: DependencyState;
  private readonly learner: LearnerOptions;

  constructor(
    private readonly deps: SourceMonitorDeps,
    private readonly opts: { learnIntervalMs?: number; learner?: Partial<LearnerOptions> } = {},
  ) {
    this.learnerState = new DependencyState(deps.log);
    this.silenceState = new DependencyState(deps.log);
    this.learner = {
      ...LEARNER_DEFAULTS,
      warmupEvents: deps.config.RELAY_SCHEMA_WARMUP_EVENTS,
      warmupSeconds: deps.config.RELAY_SCHEMA_WARMUP_SECONDS,
      ...opts.learner,
    };
  }

  start(): void {
    this.timers.push(setInterval(() => this.learn(), this.opts.learnIntervalMs ?? 1000));
    this.timers.push(setInterval(() => this.checkSilence(), this.deps.config.RELAY_SILENCE_CHECK_SECONDS * 1000));
    this.learn();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearInterval(timer);
    await Promise.all([this.learning, this.checking]);
  }

  private knex() {
    return this.deps.orm.em.getConnection().getKnex();
  }

  /** One learning run: passes until no backlog is left (or the monitor stops). A run in progress is not doubled. */
  learn(): void {
    if (this.learning || this.stopped) return;
    this.learning = (async () => {
      try {
        while (!this.stopped && (await learnSchemas(this.knex(), this.learner)).more);
        this.learnerState.succeeded('learning schemas runs again');
      } catch (err) {
        this.learnerState.failed(err, 'learning schemas failed (database unreachable?); retrying every second');
      }
    })().finally(() => (this.learning = null));
  }

  checkSilence(): void {
    if (this.checking || this.stopped) return;
    this.checking = checkSilence(this.knex())
      .then(
        () => void this.silenceState.succeeded('the silence check runs again'),
        (err) => this.silenceState.failed(err, 'checking for silent sources failed (database unreachable?); retrying at the next check'),
      )
      .finally(() => (this.checking = null));
  }
}
