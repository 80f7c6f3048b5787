import { type ReactNode, useEffect, useRef, useState } from 'react';
import { gql } from 'urql';
import { Link, useLocation, useParams } from 'wouter';
import { countOf, EmptyState, ErrorMessage, Page, Pager, Table, Time } from '../components';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';
import { useCan } from '../lib/session';
import { urlCursorPager, useUrlState } from '../lib/url-state';
import { BulkActionPanel } from './bulk-action';

/**
 * Issues (docs/alerts.md#issues): failures grouped by destination and cause, and a source's changed payloads or
 * silence (docs/schemas.md); change their state, retry what a destination's issue affected.
 */

const STATES = ['open', 'acknowledged', 'ignored', 'resolved'] as const;
type IssueState = (typeof STATES)[number];

/** How each cause reads in the list (src/issues/issue-cause.ts). */
const CAUSES: Record<string, string> = {
  http_3xx: 'HTTP 3xx',
  http_4xx: 'HTTP 4xx',
  http_5xx: 'HTTP 5xx',
  platform_error: 'platform error',
  timeout: 'timeout',
  connection_refused: 'connection refused',
  connection_error: 'connection error',
  transform_error: 'transform error',
  template_error: 'template error',
  circuit_open: 'circuit open',
  configuration: 'configuration',
  schema_changed: 'payloads changed',
  source_silent: 'source silent',
};

const ISSUE_FIELDS = 'id cause state firstSeenAt lastSeenAt failureCount eventCount lastStatusCode lastError eventType destination { id name type } source { id name slug }';
const ISSUES = gql`
  query Issues($projectId: ID, $cursor: String, $state: String, $destinationId: ID) {
    issues(projectId: $projectId, cursor: $cursor, limit: 50, state: $state, destinationId: $destinationId) {
      data { ${ISSUE_FIELDS} }
      nextCursor
    }
  }
`;
const ISSUE = gql`query Issue($projectId: ID, $id: ID!) { issue(projectId: $projectId, id: $id) { ${ISSUE_FIELDS} } }`;
const UPDATE = gql`mutation UpdateIssue($projectId: ID, $id: ID!, $state: String!) { updateIssue(projectId: $projectId, id: $id, state: $state) { id state } }`;
const COUNTS = gql`query IssueCounts($projectId: ID) { issueCounts(projectId: $projectId) { open } }`;

interface Issue {
  id: string;
  cause: string;
  state: IssueState;
  firstSeenAt: string;
  lastSeenAt: string;
  failureCount: number;
  eventCount: number;
  lastStatusCode: number | null;
  lastError: string | null;
  eventType: string | null;
  /** A destination's issue, or a source's (payloads changed, silent). */
  destination: { id: string; name: string; type: string } | null;
  source: { id: string; name: string; slug: string } | null;
}

/** What an issue is about: its destination, or its source (and event type), linked to its page. */
function Subject({ issue }: { issue: Issue }) {
  if (issue.destination) return <Link href={`/destinations/${issue.destination.id}`}>{issue.destination.name}</Link>;
  if (!issue.source) return <>—</>;
  return (
    <>
      <Link href={`/endpoints/${issue.source.id}`}>{issue.source.name}</Link>
      {issue.eventType !== null && <span className="mono"> · {issue.eventType || '(no type)'}</span>}
    </>
  );
}

const subjectName = (issue: Issue) => issue.destination?.name ?? issue.source?.name ?? '—';

const STATE_TONE: Record<IssueState, string> = { open: 'bad', acknowledged: 'wait', ignored: 'muted', resolved: 'ok' };

/** The state changes offered from each state; reopening undoes an ignore or a resolution. */
const ACTIONS: Record<IssueState, { label: string; to: IssueState }[]> = {
  open: [
    { label: 'Acknowledge', to: 'acknowledged' },
    { label: 'Ignore', to: 'ignored' },
    { label: 'Resolve', to: 'resolved' },
  ],
  acknowledged: [
    { label: 'Ignore', to: 'ignored' },
    { label: 'Resolve', to: 'resolved' },
  ],
  ignored: [
    { label: 'Reopen', to: 'open' },
    { label: 'Resolve', to: 'resolved' },
  ],
  resolved: [{ label: 'Reopen', to: 'open' }],
};

/** The navigation's count re-reads when this page changes an issue (the client keeps no cache to invalidate). */
const countListeners = new Set<() => void>();
const issuesChanged = () => countListeners.forEach((refresh) => refresh());

/** How often the navigation's count looks for newly opened issues. */
const COUNT_POLL_MS = 30_000;

/** The number of open issues beside "Issues" in the navigation; nothing when there are none. */
export function OpenIssuesCount() {
  const [location] = useLocation();
  const [{ data }, refetch] = useProjectQuery<{ issueCounts: { open: number } }>(COUNTS, {}, { requestPolicy: 'network-only' });
  useEffect(() => {
    const refresh = () => refetch({ requestPolicy: 'network-only' });
    countListeners.add(refresh);
    const t = setInterval(refresh, COUNT_POLL_MS);
    return () => {
      countListeners.delete(refresh);
      clearInterval(t);
    };
  }, [refetch]);
  // A page change is a moment the user looks at the navigation: read the count afresh (the first page's read is the query's own).
  const shownAt = useRef(location);
  useEffect(() => {
    if (shownAt.current === location) return;
    shownAt.current = location;
    refetch({ requestPolicy: 'network-only' });
  }, [location, refetch]);
  const open = data?.issueCounts.open ?? 0;
  if (!open) return null;
  return (
    <span className="badge bad nav-count" data-testid="open-issues" aria-label={`${open} open`}>
      {open}
    </span>
  );
}

const KEYS = ['state', 'destination', 'cursors'] as const;

export function IssuesPage() {
  const [filters, setUrl] = useUrlState(KEYS);
  const pager = urlCursorPager(filters.cursors, (cursors) => setUrl({ cursors }));
  const [{ data, error, fetching }, refetch] = useProjectQuery<{ issues: { data: Issue[]; nextCursor: string | null } }>(ISSUES, {
    cursor: pager.cursor,
    state: filters.state || undefined,
    destinationId: filters.destination || undefined,
  });
  const rows = data?.issues.data ?? [];
  const destinationName = rows.find((r) => r.destination?.id === filters.destination)?.destination?.name;

  return (
    <Page title="Issues">
      <p className="muted">
        An issue groups the failed deliveries of one destination with one cause. It opens on the first failure and resolves itself after three successful deliveries in a row; it is also announced on the
        project’s operational events source. A source has issues too: when its payloads change, or when it goes quiet.
      </p>
      <div className="row filters">
        <label>
          State{' '}
          <select value={filters.state} onChange={(e) => setUrl({ state: e.target.value, cursors: '' })}>
            <option value="">all</option>
            {STATES.map((s) => (
              <option key={s} value={s}>
                {s}
              </option>
            ))}
          </select>
        </label>
        {filters.destination && (
          <span data-testid="destination-filter">
            Destination: <Link href={`/destinations/${filters.destination}`}>{destinationName ?? filters.destination}</Link>{' '}
            <button type="button" className="small" onClick={() => setUrl({ destination: '', cursors: '' })}>
              Show all destinations
            </button>
          </span>
        )}
      </div>
      <ErrorMessage error={error} />
      <IssueTable
        rows={rows}
        onChanged={() => refetch({ requestPolicy: 'network-only' })}
        empty={
          fetching ? (
            <div className="loading">Loading…</div>
          ) : (
            !error && (
              <EmptyState title={filters.state || filters.destination ? 'No issues match' : 'No issues yet'}>
                When deliveries to a destination fail, the failures are grouped here by destination and cause (an HTTP status class, a timeout, a refused connection, a transform or
                template error), with when they started, how often they happened and which events they affected. Acknowledge an issue while you work on it, retry every delivery it
                affected once the receiver is fixed, and link a chat channel or webhook to the <Link href="/endpoints">operational events</Link> source to be told when one opens.
              </EmptyState>
            )
          )
        }
      />
      <Pager pager={pager} nextCursor={data?.issues.nextCursor} />
    </Page>
  );
}

/** One issue: where an operational event's `dashboard_url` leads. */
export function IssuePage() {
  const { id } = useParams<{ id: string }>();
  const [{ data, error }, refetch] = useProjectQuery<{ issue: Issue }>(ISSUE, { id });
  const issue = data?.issue;
  return (
    <Page
      title={
        <>
          <Link href="/issues">Issues</Link> / {issue ? `${subjectName(issue)} · ${CAUSES[issue.cause] ?? issue.cause}` : '…'}
        </>
      }
    >
      <ErrorMessage error={error} />
      {issue ? (
        <IssueTable rows={[issue]} onChanged={() => refetch({ requestPolicy: 'network-only' })} />
      ) : (
        !error && <div className="loading">Loading…</div>
      )}
      {issue?.destination && (
        <p>
          <Link href={`/issues?destination=${issue.destination.id}`}>Every issue of {issue.destination.name}</Link>
        </p>
      )}
      {issue?.source && (
        <p>
          <Link href={`/endpoints/${issue.source.id}`}>{issue.source.name}: its event types, their schemas and changes</Link>
        </p>
      )}
    </Page>
  );
}

/** Issues with their actions: change the state, retry every delivery an issue affected. */
function IssueTable({ rows, onChanged, empty }: { rows: Issue[]; onChanged: () => void; empty?: ReactNode }) {
  const [updated, update] = useProjectMutation<{ updateIssue: { id: string; state: IssueState } }>(UPDATE);
  const [retrying, setRetrying] = useState<Issue | null>(null);
  const canWrite = useCan('write');
  const reload = () => {
    onChanged();
    issuesChanged();
  };
  const move = async (issue: Issue, state: IssueState) => (await update({ id: issue.id, state })).data && reload();
  return (
    <>
      {retrying && (
        <BulkActionPanel
          key={retrying.id}
          kind="retry"
          filter={{ issueId: retrying.id }}
          describe={(n) => `${countOf(n, 'affected delivery', 'affected deliveries')} to ${subjectName(retrying)}`}
          onClose={() => setRetrying(null)}
          onDone={reload}
        />
      )}
      <ErrorMessage error={updated.error} />
      <Table
        label="Issues"
        rows={rows}
        rowKey={(i) => i.id}
        empty={empty}
        columns={[
          { header: 'Destination or source', cell: (i) => <Subject issue={i} /> },
          {
            header: 'Cause',
            className: 'wrap',
            cell: (i) => (
              <>
                <Link href={`/issues/${i.id}`}>{CAUSES[i.cause] ?? i.cause}</Link>
                {i.lastError && <div className="muted small-print">{i.lastError}</div>}
              </>
            ),
          },
          { header: 'State', cell: (i) => <span className={`badge ${STATE_TONE[i.state]}`}>{i.state}</span> },
          { header: 'First seen', cell: (i) => <Time value={i.firstSeenAt} />, className: 'hide-narrow' },
          { header: 'Last seen', cell: (i) => <Time value={i.lastSeenAt} /> },
          { header: 'Failures', cell: (i) => i.failureCount, className: 'num' },
          { header: 'Affected events', cell: (i) => i.eventCount, className: 'num' },
          ...(canWrite
            ? [
                {
                  header: '',
                  cell: (i: Issue) => (
                    <div className="row">
                      {ACTIONS[i.state].map((a) => (
                        <button key={a.to} type="button" className="small" disabled={updated.fetching} onClick={() => move(i, a.to)}>
                          {a.label}
                        </button>
                      ))}
                      {i.destination && (
                        <button type="button" className="small" onClick={() => setRetrying(i)}>
                          Retry affected deliveries…
                        </button>
                      )}
                    </div>
                  ),
                },
              ]
            : []),
        ]}
      />
    </>
  );
}

/** The destination page's link to its issues: how many are open or acknowledged. */
export const DESTINATION_ISSUES_FIELDS = `openIssues: issues(projectId: $projectId, destinationId: $id, state: "open", limit: 100) { data { id } nextCursor }
  acknowledgedIssues: issues(projectId: $projectId, destinationId: $id, state: "acknowledged", limit: 100) { data { id } nextCursor }`;

export interface DestinationIssues {
  openIssues: { data: { id: string }[]; nextCursor: string | null };
  acknowledgedIssues: { data: { id: string }[]; nextCursor: string | null };
}

export function DestinationIssuesLink({ destinationId, issues }: { destinationId: string; issues: DestinationIssues }) {
  const count = (p: DestinationIssues['openIssues']) => `${p.data.length}${p.nextCursor ? '+' : ''}`;
  const open = issues.openIssues.data.length;
  const acknowledged = issues.acknowledgedIssues.data.length;
  return (
    <Link href={`/issues?destination=${destinationId}`} data-testid="destination-issues">
      {open || acknowledged
        ? [open && `${count(issues.openIssues)} open`, acknowledged && `${count(issues.acknowledgedIssues)} acknowledged`].filter(Boolean).join(', ')
        : 'none open; see past issues'}
    </Link>
  );
}
