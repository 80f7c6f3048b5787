import { Client } from '@temporalio/client';
import type { AppContainer } from './container';
import { type ApiServer, startApiServer } from '../http/server';
import { WorkerSupervisor } from '../worker/worker-supervisor';
import { DeliveryDispatcher } from '../deliveries/delivery-dispatcher';
import { WorkflowReconciler } from '../deliveries/workflow-reconciler';
import { OperationalEventPublisher } from '../operational-events/operational-event-publisher';
import { SourceMonitor } from '../schemas/source-monitor';
import { closeHttpAgents } from '../sending/http-client';
import { ensureRetentionSchedule } from '../retention/retention-schedule';
import { trackDeliveryBacklog } from '../deliveries/delivery-backlog';
import { startMetricsServer } from '../metrics/metrics-server';
import { tracingClientInterceptors } from '../telemetry/tracing';
import { checkTemporalConnection, temporalSettings } from '../temporal/client';
import { drainApi } from '../health/drain';
import { readiness, trackReadiness } from '../health/readiness';

/**
 * What an API process runs: the HTTP server and the background loops that
 * belong beside it. Returns a stop function (stops in reverse order).
 */
export async function startApiProcess(container: AppContainer, port?: number): Promise<ApiServer> {
  // A TLS or API-key setting the server refuses stops start-up here (one line naming the variable);
  // an unreachable Temporal does not: ingress keeps answering while it is down.
  const temporal = temporalSettings(container.config);
  if (temporal.tls || temporal.apiKey) await checkTemporalConnection(container.temporal, temporal);
  trackDeliveryBacklog(() => container.orm.em.getConnection().getKnex());
  trackReadiness(container);
  // Registered before the API's server, so it closes after it: Prometheus and the probes see the drain to its end.
  await startMetricsListener(container, container.config.RELAY_METRICS_PORT, 'metrics at /metrics, health at /healthz and /readyz');
  const api = await startApiServer(container, port);
  container.onClose('http server', () => api.close());
  // Before anything else: leave /readyz and keep serving for the drain delay (src/health/drain.ts).
  container.onClose('drain', () => drainApi(container), { first: true });
  // Before anything stops: subscriptions completed by their feeds stopping would read as "ended" to clients, not as a restart.
  container.onClose('websockets', () => api.closeSockets(), { first: true });
  return api;
}

/**
 * What a worker process runs: the Temporal worker (workflows + activities) and
 * the delivery outbox dispatcher (safe in any number of processes: SKIP LOCKED
 * claims, deterministic workflow ids). Without a worker nothing is delivered,
 * so the dispatcher lives here rather than on the request path.
 */
export async function startWorkerProcess(container: AppContainer, taskQueue?: string): Promise<void> {
  // Registered first so it runs last: the shared outbound HTTP pools close after the worker has stopped.
  container.onClose('outbound http', () => closeHttpAgents());
  trackDeliveryBacklog(() => container.orm.em.getConnection().getKnex());
  trackReadiness(container);
  await startMetricsListener(container, container.config.RELAY_WORKER_METRICS_PORT, 'worker metrics at /metrics, readiness at /readyz');
  // The dispatcher first: fan-out needs only PostgreSQL, so deliveries appear while the worker connects.
  const dispatcher = new DeliveryDispatcher(container);
  await dispatcher.start();
  const queue = taskQueue ?? container.config.TEMPORAL_TASK_QUEUE;
  // Temporal away at start, or lost later, is waited out (src/worker/worker-supervisor.ts); `/readyz` says so meanwhile.
  const supervisor = new WorkerSupervisor(container, {
    taskQueue,
    onRunning: (worker, first) => {
      // Eager starts go through the running worker's connection (a new one after each reconnection).
      dispatcher.useEagerStart(
        new Client({ connection: worker.worker.connection!, namespace: container.config.TEMPORAL_NAMESPACE, interceptors: tracingClientInterceptors() }),
      );
      if (first) {
        ensureRetentionSchedule(container.temporal, queue, container.log).catch((err) =>
          container.log.warn({ err }, 'could not create the event retention schedule; it is created at the next start'),
        );
      }
    },
  });
  await supervisor.start().catch(async (err) => {
    await dispatcher.stop();
    throw err;
  });
  // The dispatcher stops before the worker whose connection its eager starts use (closers run last first).
  container.onClose('temporal worker', () => supervisor.stop());
  container.onClose('dispatcher', () => dispatcher.stop());
  // No delivery left without a workflow (a terminated, timed-out or lost one): a bounded pass a minute.
  const reconciler = new WorkflowReconciler(container);
  reconciler.start();
  container.onClose('workflow reconciler', () => reconciler.stop());
  // Needs only PostgreSQL: operational events become events on the system sources, which the dispatcher fans out.
  const publisher = new OperationalEventPublisher(container);
  await publisher.start();
  container.onClose('operational events', () => publisher.stop());
  // Needs only PostgreSQL: learns schemas and watches for silence off the ingress path (docs/schemas.md).
  const monitor = new SourceMonitor(container);
  monitor.start();
  container.onClose('source monitor', () => monitor.stop());
}

/** The process's metrics listener (src/metrics/metrics-server.ts) on `port` of RELAY_METRICS_HOST, when a port is set. */
async function startMetricsListener(container: AppContainer, port: number | undefined, line: string): Promise<void> {
  if (port === undefined) return;
  const { config } = container;
  const host = config.RELAY_METRICS_HOST ?? config.HOST;
  const metrics = await startMetricsServer({ port, host, ready: () => readiness(container), token: config.RELAY_METRICS_TOKEN });
  container.onClose('metrics listener', () => metrics.close());
  container.log.info({ host, port: metrics.port }, line);
}
