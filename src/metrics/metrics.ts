import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { relayCommit, relayVersion } from '../../packages/cli/src/version';

/**
 * One Prometheus registry per process, served at `GET /metrics`. Other areas
 * add their own counters with `new Counter({ ..., registers: [metricsRegistry] })`.
 */
export const metricsRegistry = new Registry();
collectDefaultMetrics({ register: metricsRegistry, prefix: 'relay_' });

/** Which release runs where (a rolling deploy shows both): read at the first scrape, as `relay --version` says it. */
let labelled = false;
export const buildInfo = new Gauge({
  name: 'relay_build_info',
  help: 'Always 1, labelled with the version and git commit of this process (as relay --version prints them).',
  labelNames: ['version', 'commit'] as const,
  registers: [metricsRegistry],
  collect() {
    if (!labelled) this.set({ version: relayVersion(), commit: relayCommit() }, 1);
    labelled = true;
  },
});

export const ingressRequests = new Counter({
  name: 'relay_ingress_requests_total',
  help: 'Ingress requests by HTTP status answered.',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

export const ingressEventsStored = new Counter({
  name: 'relay_ingress_events_stored_total',
  help: 'Events committed by ingress, by event status (received, filtered).',
  labelNames: ['status'] as const,
  registers: [metricsRegistry],
});

/** docs/ingress.md#limits: rejected (Free) and accepted-over-cap (Team, Growth) requests are both counted. */
export const ingressRateLimited = new Counter({
  name: 'relay_ingress_rate_limited_total',
  help: 'Requests over an ingress cap: outcome "rejected" (429) or "accepted_over_cap"; scope "endpoint" or "project".',
  labelNames: ['outcome', 'scope', 'plan'] as const,
  registers: [metricsRegistry],
});

export const ingressBatchSize = new Histogram({
  name: 'relay_ingress_commit_batch_size',
  help: 'Events per group commit.',
  buckets: [1, 2, 5, 10, 20, 50, 100, 200, 500],
  registers: [metricsRegistry],
});

export const ingressCommitSeconds = new Histogram({
  name: 'relay_ingress_commit_seconds',
  help: 'Time of one group commit (INSERT … RETURNING, autocommit).',
  buckets: [0.0005, 0.001, 0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.5],
  registers: [metricsRegistry],
});

/** Destination types are few and fixed (webhook, chat_a, chat_b, chat_c, cli): safe as a label. */
export const deliveryAttempts = new Counter({
  name: 'relay_delivery_attempts_total',
  help: 'Delivery attempts by outcome (delivered, retrying, failed, skipped; rate_limited: deferred, not counted as an attempt) and destination type.',
  labelNames: ['outcome', 'destination_type'] as const,
  registers: [metricsRegistry],
});

/** Attempts not made yet because of the destination's capacity: `throttled` (max_concurrency) or `deferred` (circuit open). */
export const deliveryDeferrals = new Counter({
  name: 'relay_delivery_deferrals_total',
  help: 'Attempts that waited on a workflow timer instead of sending: reason throttled (max_concurrency) or deferred (circuit open).',
  labelNames: ['reason', 'destination_type'] as const,
  registers: [metricsRegistry],
});

export const circuitTransitions = new Counter({
  name: 'relay_destination_circuit_transitions_total',
  help: 'Destination circuit-breaker transitions: opened, reopened (a failed probe), closed.',
  labelNames: ['transition'] as const,
  registers: [metricsRegistry],
});

/** The SDK drops an eager start silently when the starting worker has no free workflow-task slot: `fallback` counts those. */
export const workflowEagerStarts = new Counter({
  name: 'relay_workflow_eager_starts_total',
  help: 'Delivery workflow starts that asked for eager start, by result: eager (first task handed to this worker) or fallback (task queue).',
  labelNames: ['result'] as const,
  registers: [metricsRegistry],
});

export const deliverySendSeconds = new Histogram({
  name: 'relay_delivery_send_seconds',
  help: 'Time of one send (request to answer or failure), by destination type.',
  labelNames: ['destination_type'] as const,
  buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
  registers: [metricsRegistry],
});

export const deliveryFirstAttemptSeconds = new Histogram({
  name: 'relay_delivery_ingest_to_first_attempt_seconds',
  help: 'From the event committed by ingress to the end of its first delivery attempt (queueing, workflow start, send).',
  labelNames: ['destination_type'] as const,
  buckets: [0.01, 0.025, 0.05, 0.1, 0.15, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
  registers: [metricsRegistry],
});

export const deliveryWorkflowsReconciled = new Counter({
  name: 'relay_delivery_workflows_reconciled_total',
  help:
    'Deliveries whose Temporal workflow ended without recording an outcome or was lost, by what the reconciler did (dead_lettered, canceled, restarted) and how the workflow ended (terminated, timed_out, failed, canceled, completed, not_found).',
  labelNames: ['action', 'reason'] as const,
  registers: [metricsRegistry],
});
// Each action with each way it comes about, at 0 from the start, so that an alert's increase() counts the first one.
for (const reason of ['terminated', 'timed_out', 'failed', 'completed']) deliveryWorkflowsReconciled.inc({ action: 'dead_lettered', reason }, 0);
deliveryWorkflowsReconciled.inc({ action: 'canceled', reason: 'canceled' }, 0);
deliveryWorkflowsReconciled.inc({ action: 'restarted', reason: 'not_found' }, 0);

export const deliveryRetriesScheduled = new Counter({
  name: 'relay_delivery_retries_scheduled_total',
  help: 'Failed attempts followed by a scheduled retry (durable timer), by destination type.',
  labelNames: ['destination_type'] as const,
  registers: [metricsRegistry],
});

export const chatCooldowns = new Counter({
  name: 'relay_chat_cooldowns_total',
  help: 'Global per-platform cooldowns started or extended after a chat platform 429 (docs/delivery.md#retries-timeouts-and-what-receivers-can-say).',
  labelNames: ['platform'] as const,
  registers: [metricsRegistry],
});

/** src/worker/worker-watchdog.ts: times this worker process did not run for 5 s or more (stopped, or its event loop blocked). */
export const workerPauses = new Counter({
  name: 'relay_worker_pauses_total',
  help: 'Times this worker process did not run for 5 s or more (SIGSTOP, a heap snapshot, a long GC pause).',
  registers: [metricsRegistry],
});

/** 1 while workflow tasks wait on the worker's task queue and this worker has taken none for a minute. */
export const workflowTaskStall = new Gauge({
  name: 'relay_worker_workflow_task_stall',
  help: '1 while workflow tasks have waited on the task queue for a minute and this worker has completed none meanwhile.',
  registers: [metricsRegistry],
});

/** docs/internals/delivery.md "One event cannot stop the others". */
export const eventsQuarantined = new Counter({
  name: 'relay_events_quarantined_total',
  help: 'Events the outbox could not fan out even alone, set aside undelivered with their reason, by the SQLSTATE of the failure.',
  labelNames: ['sqlstate'] as const,
  registers: [metricsRegistry],
});

export const eventsSearchDegraded = new Counter({
  name: 'relay_events_search_degraded_total',
  help: 'Events fanned out with a partial search row because their payload overflows search (no jsonb form, words of the first 256 KiB).',
  registers: [metricsRegistry],
});
