import { useEffect, useRef, useState } from 'react';
import { gql, useClient } from 'urql';
import { Link } from 'wouter';
import { OUTCOMES, outcomeLabel } from '../../../packages/cli/src/shared/outcomes';
import { Can, EmptyState, ErrorMessage, LiveIndicator, OutcomeBadge, Page, Pager, ResponseFrom, ShortId, Table, Time } from '../components';
import { useOnReconnect } from '../lib/connection';
import { useProjectQuery, useProjectSubscription } from '../lib/hooks';
import { useWorkspace } from '../lib/session';
import { EVENT_OUTCOME_FIELDS, EVENT_ROW_FIELDS, type EndpointRef, type EventOutcomeFields, type EventRow, type Page as ListPage } from '../lib/types';
import { type BulkFilter, BulkActionPanel } from './bulk-action';
import { isoToLocalInput, localInputToIso, urlCursorPager, useUrlState } from '../lib/url-state';

const EVENTS = gql`
  query Events($projectId: ID, $cursor: String, $limit: Int!, $endpointId: ID, $destinationId: ID, $eventTypePrefix: String, $outcome: String, $responseClass: String, $createdAfter: String, $createdBefore: String, $contains: String, $q: String) {
    events(projectId: $projectId, cursor: $cursor, limit: $limit, endpointId: $endpointId, destinationId: $destinationId, eventTypePrefix: $eventTypePrefix, outcome: $outcome, responseClass: $responseClass, createdAfter: $createdAfter, createdBefore: $createdBefore, contains: $contains, q: $q) {
      data { ${EVENT_ROW_FIELDS} }
      nextCursor
    }
  }
`;
const FILTER_OPTIONS = gql`
  query EventFilterOptions($projectId: ID) {
    endpoints(projectId: $projectId, limit: 200) { data { id name slug system } }
    destinations(projectId: $projectId, limit: 200) { data { id name } }
  }
`;
const EVENT_RECEIVED = gql`
  subscription EventReceived($projectId: ID, $endpointId: ID) { eventReceived(projectId: $projectId, endpointId: $endpointId) { ${EVENT_ROW_FIELDS} } }
`;
const ATTEMPT_CHANGED = gql`
  subscription EventsAttemptChanged($projectId: ID) { deliveryAttemptUpdated(projectId: $projectId) { id eventId } }
`;
const EVENT_OUTCOME = gql`
  query EventOutcome($projectId: ID, $id: ID!) { event(projectId: $projectId, id: $id) { id ${EVENT_OUTCOME_FIELDS} } }
`;

/** Every filter lives in the URL (deep links; a reload keeps the view). */
const KEYS = ['endpoint', 'destination', 'outcome', 'code', 'type', 'after', 'before', 'search', 'limit', 'cursors'] as const;
type Filters = Record<(typeof KEYS)[number], string>;

const OUTCOME_OPTIONS: [string, string][] = OUTCOMES.map((o) => [o, outcomeLabel(o)]);
const CODE_CLASSES: [string, string][] = [
  ['2xx', '2xx'],
  ['3xx', '3xx'],
  ['4xx', '4xx'],
  ['5xx', '5xx'],
  ['none', 'no response'],
];

/** Could a live event belong in the list under these filters? (A new event is `pending`, with no response yet.) */
function accepts(event: EventRow, f: Filters): boolean {
  if (f.endpoint && event.endpointId !== f.endpoint) return false;
  if (f.type && !event.eventType.startsWith(f.type)) return false;
  if (f.outcome && f.outcome !== event.outcome) return false;
  if (f.destination || f.code || f.before || f.search) return false;
  if (f.after && Date.parse(event.createdAt) < Date.parse(f.after)) return false;
  return true;
}

/**
 * Events, newest first, with their deliveries' outcome. New events arrive through
 * `eventReceived` on the first page, above the fetched rows, so the rows and the pages
 * below never shift; `deliveryAttemptUpdated` refreshes the outcome of a row on screen.
 */
export function EventsPage() {
  const [filters, setUrl] = useUrlState(KEYS);
  const limit = Number(filters.limit) || 50;
  const pager = urlCursorPager(filters.cursors, (cursors) => setUrl({ cursors }));
  const [live, setLive] = useState<EventRow[]>([]);
  const [outcomes, setOutcomes] = useState<Record<string, EventOutcomeFields>>({});
  const [{ data, error, fetching }, refetch] = useProjectQuery<{ events: ListPage<EventRow> }>(EVENTS, {
    cursor: pager.cursor,
    limit,
    endpointId: filters.endpoint || undefined,
    destinationId: filters.destination || undefined,
    eventTypePrefix: filters.type || undefined,
    outcome: filters.outcome || undefined,
    responseClass: filters.code || undefined,
    createdAfter: filters.after || undefined,
    createdBefore: filters.before || undefined,
    ...searchArgs(filters.search),
  });
  const [{ data: options }] = useProjectQuery<{ endpoints: { data: (EndpointRef & { system: boolean })[] }; destinations: { data: { id: string; name: string }[] } }>(FILTER_OPTIONS);
  const onFirstPage = pager.page === 1;
  useProjectSubscription<{ eventReceived: EventRow }>(
    EVENT_RECEIVED,
    { endpointId: filters.endpoint || undefined },
    ({ eventReceived }) => {
      if (accepts(eventReceived, filters)) setLive((rows) => (rows.some((r) => r.id === eventReceived.id) ? rows : [eventReceived, ...rows]));
    },
    !onFirstPage,
  );
  useOutcomeRefresh(setOutcomes);
  // The attempt subscription starts a moment after the first read: read once more after it has, so an outcome that
  // moved in between (an attempt recorded before the subscription was live) is not left stale.
  useEffect(() => {
    const timer = setTimeout(() => refetch({ requestPolicy: 'network-only' }), 2000);
    return () => clearTimeout(timer);
  }, []); // once per visit of the page
  // Back after a drop: read the page again, so what arrived meanwhile (and outcomes that moved) shows.
  useOnReconnect(() => {
    setOutcomes({});
    refetch({ requestPolicy: 'network-only' });
  });

  const change = (patch: Partial<Filters>) => {
    setUrl({ ...patch, cursors: '' });
    setLive([]);
  };
  const [typeText, setTypeText] = useDebouncedText(filters.type, (type) => change({ type }));
  const [searchText, setSearchText] = useDebouncedText(filters.search, (search) => change({ search }));
  const fetched = data?.events.data ?? [];
  const fetchedIds = new Set(fetched.map((e) => e.id));
  const liveRows = onFirstPage ? live.filter((e) => !fetchedIds.has(e.id)) : [];
  const rows = [...liveRows, ...fetched].map((e) => ({ ...e, ...outcomes[e.id] }));
  const freshIds = new Set(liveRows.map((e) => e.id));
  const filtered = KEYS.some((k) => k !== 'limit' && k !== 'cursors' && filters[k]);
  const [bulk, setBulk] = useState(false);

  return (
    <Page
      title="Events"
      actions={
        <LiveIndicator paused={onFirstPage ? undefined : 'paused on older pages'} />
      }
    >
      <form className="filters" onSubmit={(e) => e.preventDefault()} aria-label="Filters">
        <label className="field search-field">
          <span className="field-label">Search payloads and headers</span>
          <input
            type="search"
            placeholder='text, or JSON such as {"repository":{"name":"relay"}}'
            value={searchText}
            onChange={(e) => setSearchText(e.target.value)}
            className={isJsonSearch(searchText) ? 'mono' : undefined}
          />
        </label>
        <Select label="Endpoint" value={filters.endpoint} onChange={(endpoint) => change({ endpoint })} any="All endpoints" options={options?.endpoints.data.map((e) => [e.id, e.name])} />
        <Select label="Destination" value={filters.destination} onChange={(destination) => change({ destination })} any="All destinations" options={options?.destinations.data.map((d) => [d.id, d.name])} />
        <Select label="Outcome" value={filters.outcome} onChange={(outcome) => change({ outcome })} any="Any" options={OUTCOME_OPTIONS} />
        <Select label="Response" value={filters.code} onChange={(code) => change({ code })} any="Any" options={CODE_CLASSES} />
        <label className="field">
          <span className="field-label">Event type</span>
          <input placeholder="starts with, e.g. push." value={typeText} onChange={(e) => setTypeText(e.target.value)} />
        </label>
        <label className="field">
          <span className="field-label">From</span>
          <input type="datetime-local" value={isoToLocalInput(filters.after)} onChange={(e) => change({ after: localInputToIso(e.target.value) })} />
        </label>
        <label className="field">
          <span className="field-label">Until</span>
          <input type="datetime-local" value={isoToLocalInput(filters.before)} onChange={(e) => change({ before: localInputToIso(e.target.value) })} />
        </label>
        <Select label="Per page" value={String(limit)} onChange={(n) => change({ limit: n === '50' ? '' : n })} options={[50, 100, 200].map((n) => [String(n), String(n)])} />
        {filtered && (
          <button
            type="button"
            className="small"
            onClick={() => {
              setTypeText('');
              setSearchText('');
              change(Object.fromEntries(KEYS.filter((k) => k !== 'limit').map((k) => [k, ''])));
            }}
          >
            Clear
          </button>
        )}
      </form>
      <Can permission="write">
        {/* Only where there is something to retry: not on an empty list, nor under a payload search (which the bulk filter cannot express). */}
        {filters.search || (rows.length === 0 && !bulk) ? null : bulk ? (
          <BulkActionPanel kind="retry" filter={bulkFilterOf(filters)} onClose={() => setBulk(false)} onDone={() => refetch({ requestPolicy: 'network-only' })} />
        ) : (
          <button type="button" className="small" onClick={() => setBulk(true)}>
            Retry matching deliveries…
          </button>
        )}
      </Can>
      <ErrorMessage error={error} />
      <Table
        label="Events"
        rows={rows}
        rowKey={(e) => e.id}
        rowHref={(e) => `/events/${e.id}`}
        rowClassName={(e) => (freshIds.has(e.id) ? 'fresh' : undefined)}
        empty={
          fetching ? (
            <div className="loading">Loading…</div>
          ) : filtered ? (
            <EmptyState title="No events match these filters" />
          ) : (
            <NoEventsYet sources={options?.endpoints.data.filter((e) => !e.system)} />
          )
        }
        columns={[
          { header: 'Received', cell: (e) => <Time value={e.createdAt} /> },
          // On a phone the outcome matters more than the source (the filter above names it).
          { header: 'Endpoint', cell: (e) => e.endpoint?.name ?? e.endpointId, className: 'hide-narrow' },
          { header: 'Type', cell: (e) => e.eventType || <span className="muted">—</span>, className: 'mono' },
          { header: 'Outcome', cell: (e) => <OutcomeBadge outcome={e.outcome} /> },
          { header: 'Response', cell: (e) => <ResponseFrom event={e} />, className: 'response' },
          { header: 'Event id', cell: (e) => <ShortId id={e.id} />, className: 'hide-narrow' },
        ]}
      />
      <Pager pager={pager} nextCursor={data?.events.nextCursor} />
    </Page>
  );
}

/** What fills an empty list: a source first (the guided first run), else a request or a Test on one. */
function NoEventsYet({ sources }: { sources: EndpointRef[] | undefined }) {
  if (!sources) return <EmptyState title="No events yet" />;
  if (sources.length === 0) {
    return (
      <EmptyState title="No events yet">
        Events arrive at a source&apos;s URL, and this project has no source. <Link href="/start">Create a source</Link>: the guide then makes a destination, links
        them and sends a test event, in about a minute.
      </EmptyState>
    );
  }
  const [first] = sources;
  return (
    <EmptyState title="No events yet">
      Send a request to a source&apos;s ingress URL, or press <strong>Test</strong> on <Link href={`/endpoints/${first.id}`}>{first.name}</Link>
      {sources.length > 1 && (
        <>
          {' '}
          or another <Link href="/endpoints">source</Link>
        </>
      )}
      .
    </EmptyState>
  );
}

/** A search box value: JSON (it starts with `{` or `[`) is a containment, anything else a text match. */
function isJsonSearch(text: string): boolean {
  return /^\s*[[{]/.test(text);
}

function searchArgs(search: string): { contains?: string; q?: string } {
  if (!search) return {};
  return isJsonSearch(search) ? { contains: search } : { q: search };
}

/** A text box that commits its (trimmed) value once typing pauses, not on every key. */
function useDebouncedText(committed: string, commit: (value: string) => void): [string, (value: string) => void] {
  const [text, setText] = useState(committed);
  useEffect(() => {
    const t = setTimeout(() => text.trim() !== committed && commit(text.trim()), 300);
    return () => clearTimeout(t);
  }, [text]); // only typing restarts the timer
  return [text, setText];
}

/** The bulk retry of what the list shows: its destination, endpoint, type and time filters; the outcome picks the delivery status. */
function bulkFilterOf(f: Filters): BulkFilter {
  const status = ({ delivered: 'success', canceled: 'canceled', skipped: 'skipped' } as Record<string, string>)[f.outcome] ?? 'failed';
  return {
    status,
    destinationId: f.destination || undefined,
    endpointId: f.endpoint || undefined,
    eventTypePrefix: f.type || undefined,
    createdAfter: f.after || undefined,
    createdBefore: f.before || undefined,
  };
}

function Select(props: { label: string; value: string; onChange: (value: string) => void; options?: [string, string][]; any?: string }) {
  return (
    <label className="field">
      <span className="field-label">{props.label}</span>
      <select value={props.value} onChange={(e) => props.onChange(e.target.value)}>
        {props.any && <option value="">{props.any}</option>}
        {props.options?.map(([value, label]) => (
          <option key={value} value={value}>
            {label}
          </option>
        ))}
      </select>
    </label>
  );
}

/**
 * Keeps the outcome column current: every attempt recorded (or changed) names its event,
 * whose outcome is read again, a batch every half second at most.
 */
function useOutcomeRefresh(set: (update: (prev: Record<string, EventOutcomeFields>) => Record<string, EventOutcomeFields>) => void) {
  const client = useClient();
  const { project } = useWorkspace();
  const pending = useRef(new Set<string>());
  const timer = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(timer.current), []);
  useProjectSubscription<{ deliveryAttemptUpdated: { eventId: string } }>(ATTEMPT_CHANGED, {}, ({ deliveryAttemptUpdated }) => {
    pending.current.add(deliveryAttemptUpdated.eventId);
    timer.current ??= setTimeout(() => {
      timer.current = undefined;
      const ids = [...pending.current];
      pending.current.clear();
      for (const id of ids) {
        void client
          .query<{ event: { id: string } & EventOutcomeFields }>(EVENT_OUTCOME, { projectId: project.id, id }, { requestPolicy: 'network-only' })
          .toPromise()
          .then(({ data }) => {
            if (!data) return;
            const { id: _id, ...fields } = data.event;
            set((prev) => ({ ...prev, [id]: fields }));
          });
      }
    }, 500);
  });
}
