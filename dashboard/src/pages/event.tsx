import { gql } from 'urql';
import { Link, useParams } from 'wouter';
import { AttemptBadge, Can, ConfirmButton, DeliveryBadge, EmptyState, ErrorMessage, JsonView, KeyValues, OutcomeBadge, Page, ResponseFrom, Table, Time, WorkflowLink } from '../components';
import { useOnReconnect } from '../lib/connection';
import { useProjectMutation, useProjectQuery, useProjectSubscription } from '../lib/hooks';
import { EVENT_OUTCOME_FIELDS, type Attempt, type Delivery, type EventOutcomeFields } from '../lib/types';

const DELIVERY_FIELDS = `
  id eventId status attemptCount nextRetryAt replayOfId deadLetteredAt completedAt note createdAt workflowUrl
  destination { id name type }
  attempts { id deliveryId attemptNumber status statusCode latencyMs responseHeaders responseBody responseBodyTruncated error nextRetryAt createdAt }
`;
const EVENT = gql`
  query Event($projectId: ID, $id: ID!) {
    event(projectId: $projectId, id: $id) {
      id eventType status createdAt headers payload sourceIp idempotencyKey quarantinedAt quarantineReason ${EVENT_OUTCOME_FIELDS}
      endpoint { id name slug }
      deliveries { ${DELIVERY_FIELDS} }
    }
  }
`;
const ATTEMPT_UPDATED = gql`
  subscription AttemptUpdated($projectId: ID, $eventId: ID) { deliveryAttemptUpdated(projectId: $projectId, eventId: $eventId) { id status } }
`;
const REPLAY = gql`
  mutation Replay($projectId: ID, $id: ID!) { replayEvent(projectId: $projectId, id: $id) { eventId deliveries { id } } }
`;
const FORCE_RETRY = gql`
  mutation ForceRetry($projectId: ID, $id: ID!) { forceRetryDelivery(projectId: $projectId, id: $id) { id } }
`;
const CANCEL = gql`
  mutation Cancel($projectId: ID, $id: ID!) { cancelDelivery(projectId: $projectId, id: $id) { id status } }
`;
export const REPLAY_DEAD_LETTERS = gql`
  mutation ReplayDeadLetters($projectId: ID, $deliveryIds: [ID!]!) { replayDeadLetters(projectId: $projectId, deliveryIds: $deliveryIds) { id } }
`;

interface EventDetail extends EventOutcomeFields {
  id: string;
  eventType: string;
  status: string;
  createdAt: string;
  headers: Record<string, string>;
  payload: unknown;
  sourceIp: string | null;
  idempotencyKey: string | null;
  quarantinedAt: string | null;
  quarantineReason: string | null;
  endpoint: { id: string; name: string; slug: string } | null;
  deliveries: Delivery[];
}

/** One event: headers, payload, and every delivery with its attempts, updated live. */
export function EventPage() {
  const { id } = useParams<{ id: string }>();
  const [{ data, error }, refetch] = useProjectQuery<{ event: EventDetail }>(EVENT, { id });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  // An attempt recorded or changed: read the deliveries again (statuses, next retry, new replays).
  useProjectSubscription(ATTEMPT_UPDATED, { eventId: id }, reload);
  useOnReconnect(reload);
  const [replaying, replay] = useProjectMutation(REPLAY);
  const [canceled, cancel] = useProjectMutation(CANCEL);
  const [forced, forceRetry] = useProjectMutation(FORCE_RETRY);
  const [dlq, replayDeadLetters] = useProjectMutation(REPLAY_DEAD_LETTERS);
  const event = data?.event;
  // A dead letter leaves the queue once a replay names it: its badge and button go with it.
  const replayed = new Set(event?.deliveries.map((d) => d.replayOfId).filter(Boolean));
  if (!event) return <Page title="Event">{error ? <ErrorMessage error={error} /> : <div className="loading">Loading…</div>}</Page>;

  return (
    <Page
      title={
        <>
          Event <span className="mono muted">{event.id}</span>
        </>
      }
      actions={
        <Can permission="write">
          <ConfirmButton onConfirm={async () => { await replay({ id: event.id }); reload(); }} confirmText="Replay to every linked destination?">
            Replay event
          </ConfirmButton>
        </Can>
      }
    >
      <ErrorMessage error={replaying.error ?? canceled.error ?? dlq.error ?? forced.error} />
      {event.quarantinedAt && (
        <div className="card" data-testid="quarantine">
          <div className="row">
            <OutcomeBadge outcome="quarantined" />
            <span className="muted">
              <Time value={event.quarantinedAt} />
            </span>
          </div>
          <p>
            The relay could not process this event, even on its own, and set it aside: it is kept, and not delivered unless you replay it. Reason:{' '}
            <span className="mono">{event.quarantineReason}</span>
          </p>
        </div>
      )}
      <div className="card event-summary">
        <p className="row" data-testid="event-outcome">
          <OutcomeBadge outcome={event.outcome} /> <ResponseFrom event={event} />
        </p>
        <KeyValues
          values={{
            received: new Date(event.createdAt).toLocaleString(),
            endpoint: event.endpoint ? `${event.endpoint.name} (${event.endpoint.slug})` : '—',
            type: event.eventType || '—',
            'source ip': event.sourceIp ?? '—',
            'idempotency key': event.idempotencyKey ?? '—',
          }}
        />
      </div>
      <div className="grid2">
        <div>
          <h2>Payload</h2>
          <JsonView value={event.payload} label="Copy payload" />
        </div>
        <div>
          <h2>Headers</h2>
          <div className="card">
            <KeyValues values={event.headers} />
          </div>
        </div>
      </div>
      <h2>Deliveries</h2>
      {event.deliveries.length === 0 && (
        <EmptyState title={event.outcome === 'filtered' ? 'Filtered: not delivered' : event.quarantinedAt ? 'Quarantined: not delivered' : 'No deliveries'}>
          {event.outcome === 'filtered' ? (
            "The endpoint's filters dropped this event."
          ) : event.quarantinedAt ? (
            'Replay the event to deliver it to the destinations linked now.'
          ) : event.endpoint ? (
            <>
              <Link href={`/endpoints/${event.endpoint.id}`}>Link a destination to {event.endpoint.name}</Link> to deliver its events.
            </>
          ) : (
            'Link a destination to the endpoint to deliver its events.'
          )}
        </EmptyState>
      )}
      {event.deliveries.map((d) => (
        <section key={d.id} className="card" data-testid="delivery">
          <div className="row">
            <strong>{d.destination ? <Link href={`/destinations/${d.destination.id}`}>{d.destination.name}</Link> : 'deleted destination'}</strong>
            <span className="muted">{d.destination?.type}</span>
            <DeliveryBadge status={d.status} deadLettered={d.deadLetteredAt !== null} />
            {d.replayOfId && <span className="badge">replay</span>}
            {replayed.has(d.id) && (
              <span className="badge muted" title="A replay took over from this delivery">
                replayed
              </span>
            )}
            {d.nextRetryAt && (
              <span className="muted">
                next retry <Time value={d.nextRetryAt} />
              </span>
            )}
            <span className="grow" />
            <WorkflowLink url={d.workflowUrl} />
            <Can permission="write">
              {(d.status === 'queued' || d.status === 'retrying') && (
                <ConfirmButton danger onConfirm={async () => { await cancel({ id: d.id }); reload(); }}>
                  Cancel
                </ConfirmButton>
              )}
              {/* Delivered: sending it again is a new delivery, not a retry. Canceled or skipped: it was never delivered, so a retry. */}
              {d.status === 'success' && !replayed.has(d.id) && (
                <ConfirmButton onConfirm={async () => { await forceRetry({ id: d.id }); reload(); }} confirmText="It was delivered: send it to this destination again?">
                  Send again
                </ConfirmButton>
              )}
              {(d.status === 'canceled' || d.status === 'skipped') && !replayed.has(d.id) && (
                <ConfirmButton onConfirm={async () => { await forceRetry({ id: d.id }); reload(); }} confirmText="Send it to this destination now?">
                  Retry
                </ConfirmButton>
              )}
              {d.deadLetteredAt && !replayed.has(d.id) && (
                <button type="button" onClick={async () => { await replayDeadLetters({ deliveryIds: [d.id] }); reload(); }}>
                  Replay from DLQ
                </button>
              )}
            </Can>
          </div>
          {d.note && (
            <p className="muted" data-testid="delivery-note">
              {d.note}
            </p>
          )}
          <Attempts attempts={d.attempts} />
        </section>
      ))}
    </Page>
  );
}

function Attempts({ attempts }: { attempts: Attempt[] }) {
  if (attempts.length === 0) return <p className="muted">No attempt yet.</p>;
  return (
    <Table
      label="Attempts"
      rows={attempts}
      rowKey={(a) => a.id}
      columns={[
        { header: '#', cell: (a) => a.attemptNumber, className: 'num' },
        { header: 'When', cell: (a) => <Time value={a.createdAt} /> },
        { header: 'Outcome', cell: (a) => <AttemptBadge status={a.status} /> },
        { header: 'Code', cell: (a) => <span data-testid="status-code">{a.statusCode ?? '—'}</span>, className: 'num' },
        { header: 'Latency', cell: (a) => (a.latencyMs === null ? '—' : `${a.latencyMs} ms`), className: 'num' },
        { header: 'Next retry', cell: (a) => <Time value={a.nextRetryAt} /> },
        {
          header: 'Response',
          className: 'wrap',
          cell: (a) => (
            <details>
              <summary>{a.error ?? (a.responseBody ? `${a.responseBody.slice(0, 60)}${a.responseBody.length > 60 ? '…' : ''}` : 'headers')}</summary>
              {a.responseHeaders && <KeyValues values={a.responseHeaders} />}
              {a.responseBody && <pre className="response-body">{a.responseBody}{a.responseBodyTruncated ? '\n… (truncated at 4096 bytes)' : ''}</pre>}
            </details>
          ),
        },
      ]}
    />
  );
}
