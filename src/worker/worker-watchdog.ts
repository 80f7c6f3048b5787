import type { Worker } from '@temporalio/worker';
import { temporal } from '@temporalio/proto';
import type { Logger } from '../common/logger';
import { workerPauses, workflowTaskStall } from '../metrics/metrics';

/**
 * Two things about a worker process that nothing else shows (issue 20, docs/scaling.md
 * "A paused worker"):
 * - the process did not run for a while (SIGSTOP, a heap snapshot, a long GC pause, a VM
 *   frozen by its host): a 1 s timer that fires late says by how much. The workflow tasks
 *   the worker held meanwhile have timed out on the server, which hands them out again.
 * - workflow tasks wait on the worker's task queue while this worker completes none: the
 *   stall seen once after a 3-minute heap snapshot. Checked every `checkMs` from the task
 *   queue's backlog (DescribeTaskQueue stats) and the worker's own activations; logged once
 *   when it starts, with the worker's status, and once when it ends.
 */
export interface WatchdogOptions {
  /** A tick this late counts as a pause. */
  pauseAfterMs: number;
  /** How often the task queue's backlog is read. */
  checkMs: number;
  /** No activation for this long while the oldest workflow task has waited as long: a stall. */
  stallAfterMs: number;
}

export const WATCHDOG_DEFAULTS: WatchdogOptions = { pauseAfterMs: 5000, checkMs: 15_000, stallAfterMs: 60_000 };

export interface BacklogSample {
  count: number;
  ageMs: number;
}

/** Pure: workflow tasks have waited `stallAfterMs` on the queue and this worker has made no progress for as long. */
export function isWorkflowTaskStall(backlog: BacklogSample, msSinceProgress: number, stallAfterMs: number): boolean {
  return backlog.count > 0 && backlog.ageMs >= stallAfterMs && msSinceProgress >= stallAfterMs;
}

const durationMs = (d: { seconds?: unknown; nanos?: number | null } | null | undefined): number =>
  d ? Number(d.seconds ?? 0) * 1000 + Math.floor((d.nanos ?? 0) / 1e6) : 0;

export async function readWorkflowBacklog(worker: Worker, namespace: string, taskQueue: string): Promise<BacklogSample> {
  const res = await worker.connection!.workflowService.describeTaskQueue({
    namespace,
    taskQueue: { name: taskQueue },
    taskQueueType: temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
    reportStats: true,
  });
  return { count: Number(res.stats?.approximateBacklogCount ?? 0), ageMs: durationMs(res.stats?.approximateBacklogAge) };
}

export function startWorkerWatchdog(
  worker: Worker,
  opts: { log: Logger; namespace: string; taskQueue: string } & Partial<WatchdogOptions>,
): () => void {
  const o = { ...WATCHDOG_DEFAULTS, ...opts };
  const log = opts.log;
  let lastProgress = performance.now();
  // Every activation that starts or completes changes the in-flight count: progress.
  const sub = worker.numInFlightActivations$.subscribe(() => (lastProgress = performance.now()));

  let lastTick = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    const lateMs = now - lastTick - 1000;
    lastTick = now;
    if (lateMs < o.pauseAfterMs) return;
    // The pause explains the wait; the worker gets `stallAfterMs` from now before it counts as stalled.
    lastProgress = now;
    workerPauses.inc();
    log.warn(
      { pausedMs: Math.round(lateMs), status: worker.getStatus() },
      `this worker process did not run for ${Math.round(lateMs / 1000)} s (stopped, or its event loop blocked): workflow tasks it held have timed out and are handed out again`,
    );
  }, 1000);
  ticker.unref();

  let stalledSince: number | null = null;
  let checking = false;
  const check = async () => {
    // Right after a pause (this check overdue too, the ticker maybe not yet run) the backlog is the pause's.
    if (checking || worker.getState() !== 'RUNNING' || performance.now() - lastTick > o.pauseAfterMs) return;
    checking = true;
    try {
      const backlog = await readWorkflowBacklog(worker, o.namespace, o.taskQueue);
      const sinceProgress = performance.now() - lastProgress;
      if (isWorkflowTaskStall(backlog, sinceProgress, o.stallAfterMs)) {
        if (stalledSince === null) {
          stalledSince = lastProgress;
          workflowTaskStall.set(1);
          log.error(
            { backlog, sinceProgressMs: Math.round(sinceProgress), status: worker.getStatus() },
            `workflow tasks have waited ${Math.round(backlog.ageMs / 1000)} s on task queue ${o.taskQueue} while this worker took none for ${Math.round(sinceProgress / 1000)} s: restart it if this lasts`,
          );
        }
      } else if (stalledSince !== null && sinceProgress < o.stallAfterMs) {
        log.warn({ stalledMs: Math.round(performance.now() - stalledSince) }, 'this worker takes workflow tasks again');
        stalledSince = null;
        workflowTaskStall.set(0);
      }
    } catch (err) {
      log.debug({ err }, 'worker watchdog: reading the task queue backlog failed');
    } finally {
      checking = false;
    }
  };
  const checker = setInterval(() => void check(), o.checkMs);
  checker.unref();

  return () => {
    clearInterval(ticker);
    clearInterval(checker);
    sub.unsubscribe();
  };
}
