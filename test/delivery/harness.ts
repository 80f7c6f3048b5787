import { WorkflowNotFoundError } from '@temporalio/client';
import type { AppContainer } from '../../src/app/container';
import { systemProjectContext, type ProjectContext } from '../../src/common/request-context';
import type { RetryPolicy } from '../../src/common/types';
import type { Destination } from '../../src/destinations/destination.entity';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { deliveryWorkflowId } from '../../src/temporal/delivery-workflows';
import { DeliveryDispatcher } from '../../src/deliveries/delivery-dispatcher';
import { type ReconcilerOptions, WorkflowReconciler } from '../../src/deliveries/workflow-reconciler';
import { closeHttpAgents } from '../../src/sending/http-client';
import { type RelayWorker, startRelayWorker } from '../../src/worker/worker';
import { createDestination, createEndpoint, createWorkspace, linkEndpoint, type Workspace } from '../support/factories';
import { createTestContainer, type TestContainer } from '../support/test-env';
import { type Receiver, startReceiver } from './receiver';

/** Short policies so that retry tests take seconds, not hours. */
export const FAST_RETRIES: RetryPolicy = { max_attempts: 4, backoff: [1, 1, 1] };

/** Raw rows (timestamps come back as text). */
export interface DeliveryRow {
  id: string;
  status: string;
  attempt_count: number;
  next_retry_at: string | null;
  dead_lettered_at: string | null;
  replay_of_id: string | null;
  destination_id: string;
  workflow_started_at: string | null;
}

export interface AttemptRow {
  attempt_number: number;
  status: string;
  status_code: number | null;
  next_retry_at: string | null;
  created_at: string;
  error: string | null;
  latency_ms: number | null;
  response_body: string | null;
  payload_sent: unknown;
}

export async function sql<T>(container: AppContainer, text: string, bindings: unknown[] = []): Promise<T[]> {
  const { rows } = await container.orm.em.getConnection().getKnex().raw(text, bindings as never[]);
  return rows as T[];
}

export async function deliveriesOf(container: AppContainer, eventId: string): Promise<DeliveryRow[]> {
  return sql<DeliveryRow>(container, 'select * from deliveries where event_id = ? order by id', [eventId]);
}

export async function attemptsOf(container: AppContainer, deliveryId: string): Promise<AttemptRow[]> {
  return sql<AttemptRow>(container, 'select * from delivery_attempts where delivery_id = ? order by attempt_number', [deliveryId]);
}

/** Polls until the event has `count` deliveries (the dispatcher creates them asynchronously). */
export async function waitForDeliveries(container: AppContainer, eventId: string, count: number): Promise<DeliveryRow[]> {
  for (;;) {
    const rows = await deliveriesOf(container, eventId);
    if (rows.length >= count) return rows;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Polls until the delivery's status is one of `statuses`. */
export async function waitForStatus(container: AppContainer, deliveryId: string, statuses: string[]): Promise<DeliveryRow> {
  for (;;) {
    const [row] = await sql<DeliveryRow>(container, 'select * from deliveries where id = ?', [deliveryId]);
    if (row && statuses.includes(row.status)) return row;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The delivery workflow's result, once the dispatcher has started it (claimed deliveries are marked just before their start). */
export async function workflowResult(container: AppContainer, deliveryId: string): Promise<unknown> {
  for (;;) {
    const [row] = await sql<DeliveryRow>(container, 'select workflow_started_at from deliveries where id = ?', [deliveryId]);
    if (row?.workflow_started_at) {
      try {
        return await container.temporal.workflow.getHandle(deliveryWorkflowId(deliveryId)).result();
      } catch (err) {
        if (!(err instanceof WorkflowNotFoundError)) throw err;
      }
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export interface Scene extends Workspace {
  endpoint: WebhookEndpoint;
  /** The endpoint's signing secret, for signed ingress requests. */
  signingSecret: string;
  /** A fresh request context (its own EntityManager) per call, as each API request gets. */
  ctx(): ProjectContext;
  destination(url: string, fields?: Partial<Destination>): Promise<Destination>;
}

/** A workspace with one endpoint; `destination()` adds a linked webhook destination. */
export async function createScene(container: AppContainer): Promise<Scene> {
  const em = container.orm.em.fork();
  const ws = await createWorkspace(em);
  const { endpoint, signingSecret } = await createEndpoint(container, em, ws.project);
  return {
    ...ws,
    endpoint,
    signingSecret,
    ctx: () => systemProjectContext(container, container.orm.em.fork(), ws.project),
    destination: async (url, fields = {}) => {
      const destination = await createDestination(container, em, ws.project, { webhookUrl: url, retryPolicy: FAST_RETRIES, ...fields });
      await linkEndpoint(em, endpoint, destination);
      return destination;
    },
  };
}

/**
 * The delivery path of a worker process, in this test: a fresh database, the real Temporal worker, the outbox
 * dispatcher, the workflow reconciler, a local receiver.
 */
export interface DeliveryStack {
  t: TestContainer;
  worker: RelayWorker;
  dispatcher: DeliveryDispatcher;
  reconciler: WorkflowReconciler;
  receiver: Receiver;
  close(): Promise<void>;
}

export async function startDeliveryStack(
  opts: { env?: Record<string, string>; dispatcher?: ConstructorParameters<typeof DeliveryDispatcher>[1]; reconciler?: ReconcilerOptions } = {},
): Promise<DeliveryStack> {
  const receiver = await startReceiver();
  const t = await createTestContainer(opts.env);
  const worker = await startRelayWorker(t.container);
  const dispatcher = new DeliveryDispatcher(t.container, { pollIntervalMs: 200, sweepAfterMs: 1000, ...opts.dispatcher });
  await dispatcher.start();
  const reconciler = new WorkflowReconciler(t.container, opts.reconciler);
  reconciler.start();
  return {
    t,
    worker,
    dispatcher,
    reconciler,
    receiver,
    close: async () => {
      await reconciler.stop();
      await dispatcher.stop();
      await worker.stop();
      await receiver.close();
      await closeHttpAgents();
      await t.close();
    },
  };
}

/** Forget what the receiver got and answer 200 again. */
export function resetReceiver(receiver: Receiver): void {
  receiver.requests.length = 0;
  receiver.respond = () => ({ status: 200, body: 'ok' });
}
