import { type Client, WorkflowExecutionAlreadyStartedError, WorkflowNotFoundError } from '@temporalio/client';
import { defineSearchAttributeKey, SearchAttributeType, WorkflowIdConflictPolicy, WorkflowIdReusePolicy } from '@temporalio/common';
import { cancelDeliverySignal, cliAnswerSignal, type deliveryWorkflow } from '../../workflows/delivery.workflow';
import { workflowEagerStarts } from '../metrics/metrics';
import { attemptTimer } from '../worker/attempt-timing';
import { SEARCH_ATTRIBUTES } from './search-attributes';

/** What a delivery workflow is started with: its id and the fields a user searches by in the Temporal UI. */
export interface DeliveryToStart {
  deliveryId: string;
  eventId: string;
  destinationId: string;
  projectId: string;
  endpointSlug: string;
  eventType: string;
}

export interface DeliveryStartOptions {
  taskQueue: string;
  attemptTimeoutMs: number;
  /**
   * Eager start: the server hands the first workflow task straight back to the
   * worker sharing the client's NativeConnection (no task-queue round trip);
   * it falls back to the task queue when that worker has no free slot.
   */
  eager?: boolean;
  /** The workflow continues as new past this many history events (unset: its own HISTORY_EVENT_LIMIT; tests lower it). */
  historyEventLimit?: number;
}

/** Deterministic: one delivery, one workflow id, whichever process starts it and however often. */
export function deliveryWorkflowId(deliveryId: string): string {
  return `delivery-${deliveryId}`;
}

/**
 * The page of a workflow in the Temporal web UI (2.x: `/namespaces/<ns>/workflows/<id>` opens its latest run),
 * or null when the UI's address is not known.
 */
export function workflowUrl(ui: { TEMPORAL_UI_URL?: string; TEMPORAL_NAMESPACE: string }, workflowId: string): string | null {
  if (!ui.TEMPORAL_UI_URL) return null;
  return `${ui.TEMPORAL_UI_URL.replace(/\/+$/, '')}/namespaces/${encodeURIComponent(ui.TEMPORAL_NAMESPACE)}/workflows/${encodeURIComponent(workflowId)}`;
}

const keyword = (name: string) => defineSearchAttributeKey(name, SearchAttributeType.KEYWORD);
const keys = {
  eventId: keyword(SEARCH_ATTRIBUTES.eventId),
  destinationId: keyword(SEARCH_ATTRIBUTES.destinationId),
  endpointSlug: keyword(SEARCH_ATTRIBUTES.endpointSlug),
  projectId: keyword(SEARCH_ATTRIBUTES.projectId),
  eventType: keyword(SEARCH_ATTRIBUTES.eventType),
  deliveryStatus: keyword(SEARCH_ATTRIBUTES.deliveryStatus),
};

/**
 * At most 255 characters: what Temporal's SQL visibility stores in a keyword column (and under
 * its 2 KB limit on a search attribute value). An event type can be any length (a header, a
 * payload field): a longer one would have its workflow start refused, every time.
 */
export function keywordValue(text: string): string {
  if (text.length <= 255) return text;
  const cut = text.slice(0, 255);
  // Not half a surrogate pair.
  return /[\ud800-\udbff]$/.test(cut) ? cut.slice(0, -1) : cut;
}

/**
 * Starts the delivery's workflow. A second start of the same delivery (two
 * dispatchers, a restart after a crash, a retry after a timeout) is refused by
 * Temporal: the id is already running (conflict policy FAIL) or closed (reuse
 * policy REJECT_DUPLICATE). That answer counts as started.
 */
export async function startDeliveryWorkflow(
  client: Client,
  opts: DeliveryStartOptions,
  d: DeliveryToStart,
): Promise<'started' | 'already_started'> {
  try {
    const handle = await client.workflow.start<typeof deliveryWorkflow>('deliveryWorkflow', {
      taskQueue: opts.taskQueue,
      workflowId: deliveryWorkflowId(d.deliveryId),
      args: [{ deliveryId: d.deliveryId, attemptTimeoutMs: opts.attemptTimeoutMs, ...(opts.historyEventLimit ? { historyEventLimit: opts.historyEventLimit } : {}) }],
      workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
      workflowIdConflictPolicy: WorkflowIdConflictPolicy.FAIL,
      requestEagerStart: opts.eager,
      typedSearchAttributes: [
        { key: keys.eventId, value: d.eventId },
        { key: keys.destinationId, value: d.destinationId },
        { key: keys.endpointSlug, value: d.endpointSlug },
        { key: keys.projectId, value: d.projectId },
        { key: keys.eventType, value: keywordValue(d.eventType) },
        { key: keys.deliveryStatus, value: 'queued' },
      ],
    });
    if (opts.eager) workflowEagerStarts.inc({ result: handle.eagerlyStarted ? 'eager' : 'fallback' });
    if (handle.eagerlyStarted) attemptTimer().startReturned(d.deliveryId);
    return 'started';
  } catch (err) {
    if (err instanceof WorkflowExecutionAlreadyStartedError) return 'already_started';
    throw err;
  }
}

/** Wakes a waiting delivery workflow so that it ends as canceled; false when it is not running. */
export async function signalDeliveryCancel(client: Client, deliveryId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).signal(cancelDeliverySignal);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}

/** Tells a delivery workflow waiting on a `cli` forward that the CLI answered it; false when the workflow is not running. */
export async function signalCliAnswer(client: Client, deliveryId: string, forwardId: string): Promise<boolean> {
  try {
    await client.workflow.getHandle(deliveryWorkflowId(deliveryId)).signal(cliAnswerSignal, forwardId);
    return true;
  } catch (err) {
    if (err instanceof WorkflowNotFoundError) return false;
    throw err;
  }
}
