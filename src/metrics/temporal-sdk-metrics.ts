import type { BufferedMetricUpdate, MetricsBuffer } from '@temporalio/worker';
import { Counter, Gauge, Histogram } from 'prom-client';
import { metricsRegistry } from './metrics';

/**
 * The Temporal SDK's own worker metrics (its Rust core records them), on the process's `/metrics` beside the relay's:
 * the core buffers each update (MetricsBuffer, installed with the runtime: src/worker/worker.ts) and `drain` moves
 * them into prom-client every second. Only those an operator watches are kept, under the names Temporal's Prometheus
 * exporter gives them (seconds, `_total` counters), so Temporal's own SDK dashboards and docs apply.
 */
type Kind = 'histogram' | 'counter' | 'gauge';
const SDK_METRICS: Record<string, { kind: Kind; labels: string[]; help: string }> = {
  workflow_task_schedule_to_start_latency: {
    kind: 'histogram',
    labels: ['namespace', 'task_queue'],
    help: 'Time a workflow task waited on its task queue before this worker took it: high when workers are too few or too busy.',
  },
  workflow_task_execution_latency: { kind: 'histogram', labels: ['namespace', 'task_queue', 'workflow_type'], help: 'Time this worker spent running one workflow task.' },
  workflow_task_execution_failed: {
    kind: 'counter',
    labels: ['namespace', 'task_queue', 'workflow_type', 'failure_reason'],
    help: 'Workflow tasks that failed on this worker (a non-deterministic change, a bug in workflow code): the workflow is stuck until fixed.',
  },
  activity_schedule_to_start_latency: { kind: 'histogram', labels: ['namespace', 'task_queue'], help: 'Time an activity task waited on its task queue before this worker took it.' },
  activity_execution_failed: { kind: 'counter', labels: ['namespace', 'task_queue', 'activity_type'], help: 'Activity executions that failed on this worker (Temporal retries them).' },
  local_activity_execution_failed: { kind: 'counter', labels: ['namespace', 'task_queue', 'activity_type'], help: 'Local activity executions that failed on this worker (retried).' },
  worker_task_slots_available: { kind: 'gauge', labels: ['namespace', 'task_queue', 'worker_type'], help: 'Free task slots of this worker, by kind (WorkflowWorker, LocalActivityWorker, ActivityWorker).' },
  worker_task_slots_used: { kind: 'gauge', labels: ['namespace', 'task_queue', 'worker_type'], help: 'Task slots of this worker in use, by kind.' },
  sticky_cache_size: { kind: 'gauge', labels: ['namespace', 'task_queue'], help: 'Workflows held in this worker\'s cache.' },
  num_pollers: { kind: 'gauge', labels: ['namespace', 'task_queue', 'poller_type'], help: 'Pollers this worker runs against the task queue, by kind.' },
  request_failure: { kind: 'counter', labels: ['namespace', 'operation', 'status_code'], help: 'Calls from this process to the Temporal frontend that failed, by operation.' },
  long_request_failure: { kind: 'counter', labels: ['namespace', 'task_queue', 'operation', 'status_code'], help: 'Long polls to the Temporal frontend that failed, by operation.' },
  workflow_completed: { kind: 'counter', labels: ['namespace', 'task_queue', 'workflow_type'], help: 'Workflows this worker completed.' },
  workflow_failed: { kind: 'counter', labels: ['namespace', 'task_queue', 'workflow_type'], help: 'Workflows this worker failed.' },
};
const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Temporal core's prefix for its metrics' names. */
const PREFIX = 'temporal_';

type Sink = (value: number, labels: Record<string, string>) => void;

function sinkFor(name: string, spec: { kind: Kind; labels: string[]; help: string }): Sink {
  const base = { labelNames: spec.labels, help: spec.help, registers: [metricsRegistry] };
  if (spec.kind === 'histogram') {
    const h = new Histogram({ ...base, name: `${PREFIX}${name}_seconds`, buckets: SECONDS_BUCKETS });
    return (value, labels) => h.observe(labels, value);
  }
  if (spec.kind === 'counter') {
    const c = new Counter({ ...base, name: `${PREFIX}${name}_total` });
    return (value, labels) => value > 0 && c.inc(labels, value);
  }
  const g = new Gauge({ ...base, name: `${PREFIX}${name}` });
  return (value, labels) => g.set(labels, value);
}

/** The registry's metric for each SDK metric name kept (created once per process: a second worker shares them). */
const sinks = new Map(Object.entries(SDK_METRICS).map(([name, spec]) => [`${PREFIX}${name}`, { sink: sinkFor(name, spec), labels: spec.labels }]));
/** The core reuses one attributes object per label set: its labels are worked out once per metric's label names. */
const labelCache = new WeakMap<object, Map<string[], Record<string, string>>>();

function labelsOf(attributes: BufferedMetricUpdate['attributes'], names: string[]): Record<string, string> {
  let byNames = labelCache.get(attributes);
  if (!byNames) labelCache.set(attributes, (byNames = new Map()));
  let labels = byNames.get(names);
  if (!labels) {
    labels = {};
    for (const name of names) if (attributes[name] !== undefined) labels[name] = String(attributes[name]);
    byNames.set(names, labels);
  }
  return labels;
}

/** Moves what the core buffered since the last call into the registry; updates of metrics not kept are dropped. */
export function drainTemporalMetrics(buffer: MetricsBuffer): void {
  for (const { metric, value, attributes } of buffer.retrieveUpdates()) {
    const target = sinks.get(metric.name);
    if (target) target.sink(value, labelsOf(attributes, target.labels));
  }
}
