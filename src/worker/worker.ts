import fs from 'node:fs';
import path from 'node:path';
import { DefaultLogger, MetricsBuffer, Runtime, Worker, bundleWorkflowCode } from '@temporalio/worker';
import type { Logger } from '../common/logger';
import { createActivities } from '../../activities';
import type { AppContainer } from '../app/container';
import { databasePoolMin } from '../config/database-pool';
import { drainTemporalMetrics } from '../metrics/temporal-sdk-metrics';
import { tracingWorkerPlugins } from '../telemetry/tracing';
import { temporalSettings } from '../temporal/client';
import { connectTemporalWorker } from '../temporal/worker-connection';
import { installAttemptTimer } from './attempt-timing';
import { startWorkerWatchdog } from './worker-watchdog';

const WORKFLOWS_PATH = require.resolve('../../workflows');
/**
 * Beside the compiled tree (dist/current/workflow-bundle.js: scripts/build-service.js writes both at once, so they
 * always match), so a compiled worker starts without bundling; the TypeScript sources (tests) bundle at start-up.
 */
export const WORKFLOW_BUNDLE_PATH = path.resolve(__dirname, '..', '..', 'workflow-bundle.js');
const RUNNING_COMPILED = __filename.endsWith('.js');

export async function bundleWorkflows(outFile = WORKFLOW_BUNDLE_PATH): Promise<string> {
  const { code } = await bundleWorkflowCode({ workflowsPath: WORKFLOWS_PATH });
  fs.mkdirSync(path.dirname(outFile), { recursive: true });
  fs.writeFileSync(outFile, code);
  return outFile;
}

/**
 * Opens the pool's floor now (the pool only keeps what it has): the first burst of attempts finds warm
 * connections. Only a head start: with PostgreSQL away the pool opens its connections when it is back.
 */
async function openPoolFloor(container: AppContainer): Promise<void> {
  const { client } = container.orm.em.getConnection().getKnex();
  const floor = databasePoolMin(container.config);
  // Held together, so each is a connection of its own; released to the pool, which keeps them (its min).
  const connections = await Promise.allSettled(Array.from({ length: floor }, () => client.acquireConnection()));
  await Promise.all(connections.flatMap((c) => (c.status === 'fulfilled' ? [client.releaseConnection(c.value)] : [])));
}

export interface RelayWorker {
  worker: Worker;
  run: Promise<void>;
  stop(): Promise<void>;
}

let runtimeInstalled = false;
/** How often the SDK's buffered metrics move into the registry (src/metrics/temporal-sdk-metrics.ts). */
const SDK_METRICS_DRAIN_MS = 1000;

/**
 * Installs the SDK's runtime once per process: its log lines (warnings and errors only) go to our logger, its worker
 * metrics to our `/metrics`; signals are left to us.
 */
export function installTemporalRuntime(log: Logger): void {
  if (runtimeInstalled) return;
  runtimeInstalled = true;
  // Far more than a second of updates at full speed (a delivery makes a few dozen): none is dropped between drains.
  const metrics = new MetricsBuffer({ maxBufferSize: 200_000, useSecondsForDurations: true });
  setInterval(() => drainTemporalMetrics(metrics), SDK_METRICS_DRAIN_MS).unref();
  Runtime.install({
    telemetryOptions: { metrics: { buffer: metrics } },
    // The process's own handler (src/launcher/server-commands.ts) stops the worker in order with everything else.
    shutdownSignals: [],
    logger: new DefaultLogger('WARN', ({ level, message, meta }) => {
      // An activity's error goes under `err`, so the logger's error serializer (bound values removed) handles it.
      const { error, ...temporal } = meta ?? {};
      const fields = error === undefined ? { temporal } : { temporal, err: error };
      if (level === 'ERROR') log.error(fields, message);
      else log.warn(fields, message);
    }),
  });
}

export async function startRelayWorker(container: AppContainer, opts: { taskQueue?: string } = {}): Promise<RelayWorker> {
  const { config } = container;
  if (!config.TEMPORAL_ADDRESS) throw new Error('TEMPORAL_ADDRESS is not set');
  installTemporalRuntime(container.log);
  const connection = await connectTemporalWorker(temporalSettings(config));
  // Tracing adds the OpenTelemetry workflow interceptors, which the prebuilt bundle does not hold: bundle at start-up then.
  const plugins = tracingWorkerPlugins();
  const prebuilt = RUNNING_COMPILED && fs.existsSync(WORKFLOW_BUNDLE_PATH) && plugins.length === 0;
  const worker = await Worker.create({
    connection,
    namespace: config.TEMPORAL_NAMESPACE,
    taskQueue: opts.taskQueue ?? config.TEMPORAL_TASK_QUEUE,
    ...(prebuilt ? { workflowBundle: { codePath: WORKFLOW_BUNDLE_PATH } } : { workflowsPath: WORKFLOWS_PATH }),
    activities: createActivities(container),
    // Slots follow the work (docs/internals/delivery.md "Capacity and isolation"). An attempt is a local activity that mostly
    // waits on a receiver's network answer: a promise and a socket, no CPU. What bounds how many wait on one
    // destination is its max_concurrency (a lease in PostgreSQL, across all workers), not this number; so it is
    // large: a thousand slow destinations would each need two attempts in flight to fill it. No attempt waits on a
    // CLI in a slot at all (the workflow waits for its answer). Workflow tasks are CPU: enough slots that an eager
    // start always finds one free (the SDK silently drops the eager request otherwise), few enough to stay bounded.
    maxConcurrentLocalActivityExecutions: config.RELAY_WORKER_MAX_ATTEMPTS,
    maxConcurrentActivityTaskExecutions: 200,
    maxConcurrentWorkflowTaskExecutions: config.RELAY_WORKER_MAX_WORKFLOW_TASKS,
    maxCachedWorkflows: 2000,
    plugins,
  }).catch(async (err) => {
    // Not kept: the supervisor (worker-supervisor.ts) connects anew on its next try.
    await connection.close();
    throw err;
  });
  await openPoolFloor(container);
  const run = worker.run();
  const stopTimer = installAttemptTimer(config.RELAY_ATTEMPT_TIMING_MS, container.log, () => container.orm.em.getConnection().getKnex());
  const stopWatchdog = startWorkerWatchdog(worker, { log: container.log, namespace: config.TEMPORAL_NAMESPACE, taskQueue: worker.options.taskQueue });
  return {
    worker,
    run,
    stop: async () => {
      stopWatchdog();
      stopTimer();
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run.catch(() => undefined);
      await connection.close();
    },
  };
}
