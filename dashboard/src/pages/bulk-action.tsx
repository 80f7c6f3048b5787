import { useEffect, useRef } from 'react';
import { gql } from 'urql';
import { countOf, ErrorMessage } from '../components';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';

/**
 * Bulk retry / bulk cancel (src/bulk-actions): the count first, then one confirmed start, then
 * the progress. One idempotency key per opened panel: a double click (or a retried request)
 * returns the action already started instead of doubling the retries.
 */

export interface BulkFilter {
  destinationId?: string;
  endpointId?: string;
  status?: string;
  eventType?: string;
  eventTypePrefix?: string;
  createdAfter?: string;
  createdBefore?: string;
  /** The deliveries an issue affected (docs/alerts.md#issues). */
  issueId?: string;
}

const PREVIEW = gql`query PreviewBulkAction($projectId: ID, $input: BulkPreviewInput!) { previewBulkAction(projectId: $projectId, input: $input) { count max } }`;
const START = gql`mutation StartBulkAction($projectId: ID, $input: BulkActionInput!) {
  startBulkAction(projectId: $projectId, input: $input) { id status stoppedReason total done applied } }`;
const PROGRESS = gql`query BulkAction($projectId: ID, $id: ID!) { bulkAction(projectId: $projectId, id: $id) { id status stoppedReason total done applied } }`;

interface Progress {
  id: string;
  status: string;
  stoppedReason: string | null;
  total: number;
  done: number;
  applied: number;
}

const newKey = () => (typeof crypto !== 'undefined' && 'randomUUID' in crypto ? crypto.randomUUID() : `${Date.now()}-${Math.random()}`);

export function BulkActionPanel(props: {
  kind: 'retry' | 'cancel';
  filter: BulkFilter;
  onClose: () => void;
  onDone?: () => void;
  /** A count of the matching deliveries in words: "1 affected delivery to Orders", "2 affected deliveries to Orders". */
  describe?: (count: number) => string;
}) {
  const { kind, filter } = props;
  const key = useRef(newKey());
  const input = { kind, filter };
  const [{ data: preview, error: previewError }] = useProjectQuery<{ previewBulkAction: { count: number; max: number } }>(PREVIEW, { input }, { requestPolicy: 'network-only' });
  const [started, start] = useProjectMutation<{ startBulkAction: Progress }>(START);
  const id = started.data?.startBulkAction.id;
  const [{ data: polled }, poll] = useProjectQuery<{ bulkAction: Progress }>(PROGRESS, { id: id ?? '' }, { pause: !id, requestPolicy: 'network-only' });
  const progress = polled?.bulkAction ?? started.data?.startBulkAction;
  const running = progress?.status === 'running';
  useEffect(() => {
    if (!running) return;
    const t = setTimeout(() => poll({ requestPolicy: 'network-only' }), 500);
    return () => clearTimeout(t);
  }, [running, progress?.done, poll]);
  const completed = progress?.status === 'completed';
  useEffect(() => {
    if (completed) props.onDone?.();
  }, [completed]); // once, when it completes
  const count = preview?.previewBulkAction.count;
  const max = preview?.previewBulkAction.max ?? 0;
  const verb = kind === 'retry' ? 'Retry' : 'Cancel';
  const kindOf = kind === 'retry' ? (filter.status ?? 'failed') : 'pending';
  const describe = props.describe ?? ((n: number) => countOf(n, `${kindOf} delivery`, `${kindOf} deliveries`));

  return (
    <section className="card" aria-label={`Bulk ${kind}`} data-testid="bulk-panel">
      <ErrorMessage error={previewError ?? started.error} />
      {!progress && count === undefined && <div className="loading">Counting…</div>}
      {!progress && count !== undefined && (
        <div className="row">
          <span data-testid="bulk-count">
            {count > max ? `More than ${describe(max)} match: narrow the filters.` : `${describe(count)} match${count === 1 ? 'es' : ''} (the newest delivery per event and destination).`}
          </span>
          <span className="grow" />
          {count > 0 && count <= max && (
            <button type="button" className="primary" disabled={started.fetching} onClick={() => start({ input: { ...input, idempotencyKey: key.current } })}>
              {verb} {describe(count)}
            </button>
          )}
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
      )}
      {progress && (
        <div className="row">
          <progress max={Math.max(progress.total, 1)} value={progress.done} aria-label="Progress" />
          <span data-testid="bulk-progress">
            {completed
              ? `Done: ${progress.applied} of ${progress.total} ${kind === 'retry' ? 'retried' : 'canceled'}`
              : progress.status === 'stopped'
                ? `Stopped after ${progress.done} of ${progress.total}: ${progress.stoppedReason}`
                : `${progress.done} of ${progress.total}…`}
            {completed && progress.applied < progress.total && ` (${progress.total - progress.applied} no longer ${kind === 'retry' ? 'current' : 'pending'})`}
          </span>
          <span className="grow" />
          <button type="button" onClick={props.onClose}>
            Close
          </button>
        </div>
      )}
    </section>
  );
}
