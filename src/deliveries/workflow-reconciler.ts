import type { Knex } from '@mikro-orm/postgresql';
import { type Client, WorkflowNotFoundError } from '@temporalio/client';
import { optionalTsToMs } from '@temporalio/common/lib/time';
import { temporal } from '@temporalio/proto';
import type { AppContainer } from '../app/container';
import { DependencyState } from '../common/backoff';
import { deliveryWorkflowsReconciled } from '../metrics/metrics';
import { notSent } from '../sending/send-result';
import { deliveryWorkflowId, startDeliveryWorkflow } from '../temporal/delivery-workflows';
import { loadAttemptContext, markDeliveryCanceled, recordAttempt } from './attempt-store';
import { toDeliveryToStart } from './delivery-dispatcher';

/**
 * No delivery without a workflow (docs/internals/delivery.md "A workflow that ends without an outcome"). A
 * delivery is `queued` or `retrying` only while its workflow runs; a workflow terminated from the Temporal UI or
 * CLI, ended by Temporal's history or time limits, or lost with its namespace leaves it so for ever. Every worker
 * process runs this loop: each pass looks at up to `batchSize` such deliveries (oldest first, going round from
 * where the last pass stopped), asks Temporal's visibility which of their workflows run (one list query per 100
 * deliveries), and only for the others asks Temporal about each one:
 * - closed (terminated, timed out, failed, or completed without recording): dead-lettered with the reason as an
 *   attempt that sent nothing (`workflow terminated: <reason>`); canceled: canceled;
 * - not found: started again, after the dispatcher's own start has had its time; the new workflow finds the
 *   recorded attempts (idempotent per attempt number) and goes on from the last one.
 * Each action re-reads the delivery under its row lock, so one that reaches an outcome meanwhile is left alone, and
 * a workflow closed less than `settleMs` ago is left for the next pass (an attempt it started may still be recording).
 * The happy path costs nothing per delivery: a delivery that succeeds within `minAgeMs` is never looked at.
 */
export type ReconcilerDeps = Pick<AppContainer, 'orm' | 'temporal' | 'config' | 'log'>;

export interface ReconcilerOptions {
  /** Between passes. */
  intervalMs?: number;
  /** Deliveries looked at per pass. */
  batchSize?: number;
  /** A delivery younger than this, or whose workflow was started (by the dispatcher) more recently, is not looked at. */
  minAgeMs?: number;
  /** A workflow closed less than this ago is left for a later pass: an attempt may still be recording (default: an attempt's longest run). */
  settleMs?: number;
}

/** What a pass did: for tests and the log. */
export interface ReconcilePass {
  looked: number;
  deadLettered: number;
  canceled: number;
  restarted: number;
}

const VISIBILITY_BATCH = 100;
const ZERO_ID = '00000000-0000-0000-0000-000000000000';
/** The attempt's own limit and its local activity's margin (workflows/delivery.workflow.ts), and a lease's margin. */
const ATTEMPT_MARGIN_MS = 30_000;

type Closed = { kind: 'closed'; status: string; runId: string; closedAt: Date; description: temporal.api.workflowservice.v1.IDescribeWorkflowExecutionResponse };
type WorkflowState = { kind: 'running' } | { kind: 'missing' } | Closed;
/** How the workflow ended, as the metric's `reason` label: a few values, whatever Temporal's message. */
export type EndedHow = 'terminated' | 'timed_out' | 'failed' | 'canceled' | 'completed' | 'not_found';
type Action = 'deadLettered' | 'canceled' | 'restarted';

/** Queued or retrying deliveries whose workflow was started, created more than `minAgeMs` ago, in id order after `after`. */
export async function unfinishedDeliveries(knex: Knex, opts: { after: string; limit: number; minAgeMs: number }): Promise<string[]> {
  const { rows } = await knex.raw(
    `select id from deliveries
      where status in ('queued', 'retrying') and workflow_started_at is not null
        and created_at < now() - make_interval(secs => ?) and id > ?
      order by id limit ?`,
    [opts.minAgeMs / 1000, opts.after, opts.limit],
  );
  return rows.map((r: { id: string }) => r.id);
}

/** The delivery workflows of `deliveryIds` that visibility lists as running: one query per VISIBILITY_BATCH ids. */
async function runningWorkflows(client: Client, deliveryIds: readonly string[]): Promise<Set<string>> {
  const running = new Set<string>();
  for (let i = 0; i < deliveryIds.length; i += VISIBILITY_BATCH) {
    const ids = deliveryIds.slice(i, i + VISIBILITY_BATCH).map((id) => `'${deliveryWorkflowId(id)}'`);
    const query = `WorkflowType = 'deliveryWorkflow' AND ExecutionStatus = 'Running' AND WorkflowId IN (${ids.join(', ')})`;
    for await (const workflow of client.workflow.list({ query, pageSize: ids.length })) running.add(workflow.workflowId);
  }
  return running;
}

/** The workflow's current run, asked of Temporal itself (visibility may lag behind it). */
async function workflowState(client: Client, deliveryId: string): Promise<WorkflowState> {
  try {
    const d = await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).describe();
    // A run that continued as new is followed by a running one.
    if (d.status.name === 'RUNNING' || d.status.name === 'CONTINUED_AS_NEW' || !d.closeTime) return { kind: 'running' };
    return { kind: 'closed', status: d.status.name, runId: d.runId, closedAt: d.closeTime, description: d.raw };
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return { kind: 'missing' };
    throw err;
  }
}

/** A Temporal duration as "<n> s"; null when unset (no limit). */
function seconds(duration: Parameters<typeof optionalTsToMs>[0]): string | null {
  const ms = optionalTsToMs(duration);
  return ms ? `${ms / 1000} s` : null;
}

/** How and why the workflow closed, from its close event (one history event, however long the history). */
async function closeReason(client: Client, deliveryId: string, closed: Closed): Promise<{ how: EndedHow; reason: string }> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: deliveryWorkflowId(deliveryId), runId: closed.runId },
    historyEventFilterType: temporal.api.enums.v1.HistoryEventFilterType.HISTORY_EVENT_FILTER_TYPE_CLOSE_EVENT,
    skipArchival: true,
  });
  const event = history?.events?.[0];
  const terminated = event?.workflowExecutionTerminatedEventAttributes;
  if (terminated) {
    return { how: 'terminated', reason: `workflow terminated: ${terminated.reason || 'no reason given'}${terminated.identity ? ` (by ${terminated.identity})` : ''}` };
  }
  if (event?.workflowExecutionTimedOutEventAttributes) {
    const config = closed.description.executionConfig;
    const limits = [
      ['run', seconds(config?.workflowRunTimeout)],
      ['execution', seconds(config?.workflowExecutionTimeout)],
    ].flatMap(([which, value]) => (value ? [`${which} timeout ${value}`] : []));
    return { how: 'timed_out', reason: `workflow timed out: it reached its Temporal time limit${limits.length ? ` (${limits.join(', ')})` : ''}` };
  }
  const failure = event?.workflowExecutionFailedEventAttributes?.failure;
  if (failure) return { how: 'failed', reason: `workflow failed: ${failure.message ?? 'no message'}` };
  if (closed.status === 'CANCELLED') return { how: 'canceled', reason: 'workflow canceled in Temporal' };
  return { how: 'completed', reason: `workflow ${closed.status.toLowerCase()} without recording an outcome` };
}

/**
 * Dead-letters a queued or retrying delivery whose workflow ended: one more attempt, `failed`, that sent nothing and
 * says why (an attempt's effects follow: the dead-letter operational event; no issue, the destination did nothing).
 * False when the delivery reached an outcome meanwhile.
 */
async function deadLetter(deps: ReconcilerDeps, deliveryId: string, reason: string): Promise<boolean> {
  const { config } = deps;
  return deps.orm.em.getConnection().getKnex().transaction(async (trx) => {
    const { rows } = await trx.raw(`select attempt_count from deliveries where id = ? and status in ('queued', 'retrying') for update`, [deliveryId]);
    if (!rows[0]) return false;
    const attemptNumber = rows[0].attempt_count + 1;
    const ctx = await loadAttemptContext(trx, deliveryId, attemptNumber);
    if (!ctx || ctx.storedAttempt) return false;
    await recordAttempt(trx, {
      ctx,
      attemptNumber,
      status: 'failed',
      nextRetryAt: null,
      result: notSent(null, reason, { permanent: true, failure: 'workflow_ended' }),
      circuit: {
        reachable: null,
        threshold: config.RELAY_CIRCUIT_FAILURE_THRESHOLD,
        cooldownSeconds: config.RELAY_CIRCUIT_COOLDOWN_SECONDS,
        maxCooldownSeconds: config.RELAY_CIRCUIT_MAX_COOLDOWN_SECONDS,
      },
    });
    await trx.raw('update deliveries set note = ? where id = ?', [`Its Temporal workflow ended without recording an outcome (${reason}): dead-lettered.`, deliveryId]);
    return true;
  });
}

/** Cancels a delivery whose workflow was canceled without recording it. False when it reached an outcome meanwhile. */
async function cancel(deps: ReconcilerDeps, deliveryId: string, reason: string): Promise<boolean> {
  return deps.orm.em.getConnection().getKnex().transaction(async (trx) => {
    if (!(await markDeliveryCanceled(trx, deliveryId, `Canceled: ${reason}.`))) return false;
    await trx.raw('update deliveries set note = ? where id = ?', [`Its Temporal workflow was canceled without recording it (${reason}): canceled.`, deliveryId]);
    return true;
  });
}

/**
 * Starts the workflow of a delivery Temporal does not know (lost with its namespace, or never started by a process
 * that died after claiming it), unless it reached an outcome or the dispatcher started it less than `minAgeMs` ago.
 * True when it was started; Temporal refuses a second start (REJECT_DUPLICATE), so a race with the dispatcher
 * starts it once.
 */
async function restart(deps: ReconcilerDeps, deliveryId: string, minAgeMs: number): Promise<boolean> {
  const knex = deps.orm.em.getConnection().getKnex();
  const { rows } = await knex.raw(
    `select d.id, d.event_id, d.destination_id, d.project_id, e.event_type, ep.slug as endpoint_slug
       from deliveries d join events e on e.id = d.event_id join webhook_endpoints ep on ep.id = d.endpoint_id
      where d.id = ? and d.status in ('queued', 'retrying') and d.workflow_started_at < now() - make_interval(secs => ?)`,
    [deliveryId, minAgeMs / 1000],
  );
  if (!rows[0]) return false;
  const started = await startDeliveryWorkflow(
    deps.temporal,
    { taskQueue: deps.config.TEMPORAL_TASK_QUEUE, attemptTimeoutMs: deps.config.RELAY_DELIVERY_TIMEOUT_MS },
    toDeliveryToStart(rows[0]),
  );
  if (started !== 'started') return false;
  await knex.raw('update deliveries set workflow_started_at = now(), note = ? where id = ?', [
    `Its Temporal workflow was not found on ${new Date().toISOString()} (lost, as with its namespace): started again, its attempts kept.`,
    deliveryId,
  ]);
  return true;
}

export class WorkflowReconciler {
  private readonly opts: Required<ReconcilerOptions>;
  private readonly state: DependencyState;
  private cursor = ZERO_ID;
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> | null = null;
  private stopped = false;

  constructor(
    private readonly deps: ReconcilerDeps,
    opts: ReconcilerOptions = {},
  ) {
    this.state = new DependencyState(deps.log);
    this.opts = {
      intervalMs: opts.intervalMs ?? 60_000,
      batchSize: opts.batchSize ?? 1000,
      minAgeMs: opts.minAgeMs ?? 60_000,
      settleMs: opts.settleMs ?? deps.config.RELAY_DELIVERY_TIMEOUT_MS + ATTEMPT_MARGIN_MS,
    };
  }

  start(): void {
    this.schedule();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.running;
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = setTimeout(() => {
      this.running = this.pass()
        .then(() => this.state.succeeded('the delivery workflow reconciler runs again'))
        .catch((err) => this.state.failed(err, 'the delivery workflow reconciler failed (Temporal or the database unreachable?); it tries again at its next pass'))
        .finally(() => {
          this.running = null;
          this.schedule();
        });
    }, this.opts.intervalMs);
  }

  /** One pass: looks at up to batchSize unfinished deliveries and acts on those whose workflow is not running. */
  async pass(): Promise<ReconcilePass> {
    const { deps, opts } = this;
    const done: ReconcilePass = { looked: 0, deadLettered: 0, canceled: 0, restarted: 0 };
    const ids = await unfinishedDeliveries(deps.orm.em.getConnection().getKnex(), { after: this.cursor, limit: opts.batchSize, minAgeMs: opts.minAgeMs });
    // Round and round: the next pass goes on after the last one looked at, and starts over after the newest.
    this.cursor = ids.length < opts.batchSize ? ZERO_ID : ids[ids.length - 1];
    done.looked = ids.length;
    if (ids.length === 0) return done;
    const running = await runningWorkflows(deps.temporal, ids);
    for (const deliveryId of ids) {
      if (this.stopped) break;
      if (running.has(deliveryWorkflowId(deliveryId))) continue;
      const state = await workflowState(deps.temporal, deliveryId);
      if (state.kind === 'running') continue;
      if (state.kind === 'missing') {
        if (await restart(deps, deliveryId, opts.minAgeMs)) this.acted(done, 'restarted', deliveryId, { how: 'not_found', reason: 'its workflow was not found in Temporal: started again' });
        continue;
      }
      if (Date.now() - state.closedAt.getTime() < opts.settleMs) continue;
      const ended = await closeReason(deps.temporal, deliveryId, state);
      if (ended.how === 'canceled') {
        if (await cancel(deps, deliveryId, ended.reason)) this.acted(done, 'canceled', deliveryId, ended);
      } else if (await deadLetter(deps, deliveryId, ended.reason)) {
        this.acted(done, 'deadLettered', deliveryId, ended);
      }
    }
    return done;
  }

  private acted(done: ReconcilePass, action: Action, deliveryId: string, { how, reason }: { how: EndedHow; reason: string }): void {
    done[action] += 1;
    const label = action === 'deadLettered' ? 'dead_lettered' : action;
    deliveryWorkflowsReconciled.inc({ action: label, reason: how });
    this.deps.log.warn({ deliveryId, workflowId: deliveryWorkflowId(deliveryId), action: label, reason }, `a delivery's workflow ended without an outcome or was lost: ${label}`);
  }
}
