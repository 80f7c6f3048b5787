import { useEffect, useState } from 'react';
import { gql } from 'urql';
import { useLocation } from 'wouter';
import { EmptyState, ErrorMessage, Page, Pager, StatusBadge, Table, Time, useCursorPager } from '../components';
import { useProjectQuery, useProjectSubscription } from '../lib/hooks';
import { EVENT_ROW_FIELDS, type EndpointRef, type EventRow, type Page as ListPage } from '../lib/types';

const EVENTS = gql`
  query Events($projectId: ID, $cursor: String, $limit: Int!, $endpointId: ID, $eventType: String, $status: String, $createdAfter: String, $createdBefore: String) {
    events(projectId: $projectId, cursor: $cursor, limit: $limit, endpointId: $endpointId, eventType: $eventType, status: $status, createdAfter: $createdAfter, createdBefore: $createdBefore) {
      data { ${EVENT_ROW_FIELDS} }
      nextCursor
    }
  }
`;
const ENDPOINT_OPTIONS = gql`
  query EndpointOptions($projectId: ID) { endpoints(projectId: $projectId, limit: 200) { data { id name slug } } }
`;
const EVENT_RECEIVED = gql`
  subscription EventReceived($projectId: ID, $endpointId: ID) { eventReceived(projectId: $projectId, endpointId: $endpointId) { ${EVENT_ROW_FIELDS} } }
`;

interface Filters {
  endpointId: string;
  eventType: string;
  status: string;
  /** datetime-local values (local time), sent as ISO 8601. */
  after: string;
  before: string;
}
const NO_FILTERS: Filters = { endpointId: '', eventType: '', status: '', after: '', before: '' };

const toIso = (local: string) => (local ? new Date(local).toISOString() : undefined);

/** Does a live event belong in the list under these filters? */
function matches(event: EventRow, f: Filters): boolean {
  if (f.endpointId && event.endpointId !== f.endpointId) return false;
  if (f.eventType && event.eventType !== f.eventType) return false;
  if (f.status && event.status !== f.status) return false;
  const at = Date.parse(event.createdAt);
  if (f.after && at < Date.parse(toIso(f.after)!)) return false;
  if (f.before && at >= Date.parse(toIso(f.before)!)) return false;
  return true;
}

const PAGE_SIZE = 50;

/** Events, newest first; new ones arrive through the eventReceived subscription without a reload. */
export function EventsPage() {
  const [filters, setFilters] = useState<Filters>(NO_FILTERS);
  const [limit, setLimit] = useState(PAGE_SIZE);
  const pager = useCursorPager();
  const [live, setLive] = useState<EventRow[]>([]);
  const [, navigate] = useLocation();
  const [{ data, error, fetching }] = useProjectQuery<{ events: ListPage<EventRow> }>(EVENTS, {
    cursor: pager.cursor,
    limit,
    endpointId: filters.endpointId || undefined,
    eventType: filters.eventType || undefined,
    status: filters.status || undefined,
    createdAfter: toIso(filters.after),
    createdBefore: toIso(filters.before),
  });
  const [{ data: endpoints }] = useProjectQuery<{ endpoints: { data: EndpointRef[] } }>(ENDPOINT_OPTIONS);
  const onFirstPage = pager.page === 1;
  useProjectSubscription<{ eventReceived: EventRow }>(
    EVENT_RECEIVED,
    { endpointId: filters.endpointId || undefined },
    ({ eventReceived }) => {
      if (matches(eventReceived, filters)) setLive((rows) => (rows.some((r) => r.id === eventReceived.id) ? rows : [eventReceived, ...rows]));
    },
    !onFirstPage,
  );

  const change = (patch: Partial<Filters>) => {
    setFilters((f) => ({ ...f, ...patch }));
    setLive([]);
    pager.reset();
  };
  // The type box queries once typing pauses, not on every key.
  const [typeText, setTypeText] = useState('');
  useEffect(() => {
    const t = setTimeout(() => typeText.trim() !== filters.eventType && change({ eventType: typeText.trim() }), 300);
    return () => clearTimeout(t);
  }, [typeText]); // only typing restarts the timer
  const fetched = data?.events.data ?? [];
  const fetchedIds = new Set(fetched.map((e) => e.id));
  const liveRows = onFirstPage ? live.filter((e) => !fetchedIds.has(e.id)) : [];
  const rows = [...liveRows, ...fetched];
  const freshIds = new Set(liveRows.map((e) => e.id));

  return (
    <Page
      title="Events"
      actions={
        <span className="muted" data-testid="live-indicator">
          {onFirstPage ? '● live' : 'paused on older pages'}
        </span>
      }
    >
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label className="field">
          <span className="field-label">Endpoint</span>
          <select value={filters.endpointId} onChange={(e) => change({ endpointId: e.target.value })}>
            <option value="">All endpoints</option>
            {endpoints?.endpoints.data.map((ep) => (
              <option key={ep.id} value={ep.id}>
                {ep.name}
              </option>
            ))}
          </select>
        </label>
        <label className="field">
          <span className="field-label">Event type</span>
          <input placeholder="exact type" value={typeText} onChange={(e) => setTypeText(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">Status</span>
          <select value={filters.status} onChange={(e) => change({ status: e.target.value })}>
            <option value="">Any</option>
            <option value="received">received</option>
            <option value="filtered">filtered</option>
          </select>
        </label>
        <label className="field">
          <span className="field-label">From</span>
          <input type="datetime-local" value={filters.after} onChange={(e) => change({ after: e.target.value })} />
        </label>
        <label className="field">
          <span className="field-label">Until</span>
          <input type="datetime-local" value={filters.before} onChange={(e) => change({ before: e.target.value })} />
        </label>
        <label className="field">
          <span className="field-label">Per page</span>
          <select value={limit} onChange={(e) => { setLimit(Number(e.target.value)); pager.reset(); }}>
            {[50, 100, 200].map((n) => (
              <option key={n}>{n}</option>
            ))}
          </select>
        </label>
        {JSON.stringify(filters) !== JSON.stringify(NO_FILTERS) && (
          <button
            type="button"
            className="small"
            onClick={() => {
              setTypeText('');
              change(NO_FILTERS);
            }}
          >
            Clear
          </button>
        )}
      </form>
      <ErrorMessage error={error} />
      <Table
        label="Events"
        rows={rows}
        rowKey={(e) => e.id}
        onRowClick={(e) => navigate(`/events/${e.id}`)}
        rowClassName={(e) => (freshIds.has(e.id) ? 'fresh' : undefined)}
        empty={fetching ? <div className="loading">Loading…</div> : <EmptyState title="No events yet">Send a request to an endpoint's ingress URL, or press Test on an endpoint.</EmptyState>}
        columns={[
          { header: 'Received', cell: (e) => <Time value={e.createdAt} /> },
          { header: 'Endpoint', cell: (e) => e.endpoint?.name ?? e.endpointId },
          { header: 'Type', cell: (e) => e.eventType || <span className="muted">—</span>, className: 'mono' },
          { header: 'Status', cell: (e) => <StatusBadge status={e.status} /> },
          { header: 'Source IP', cell: (e) => e.sourceIp ?? '—', className: 'mono hide-narrow' },
          { header: 'Event id', cell: (e) => e.id, className: 'mono hide-narrow' },
        ]}
      />
      <Pager pager={pager} nextCursor={data?.events.nextCursor} />
    </Page>
  );
}
