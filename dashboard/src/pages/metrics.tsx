import { useEffect, useMemo, useState, type ReactNode } from 'react';
import { gql } from 'urql';
import { Link, useSearchParams } from 'wouter';
import type { AlignedData } from 'uplot';
import { outcomeLabel, type Outcome } from '../../../packages/cli/src/shared/outcomes';
import { EmptyState, ErrorMessage, Page, Table } from '../components';
import { useProjectQuery } from '../lib/hooks';
import { Chart, type ChartSeries } from './metrics-chart';
import './metrics.css';

/** Project metrics (GET /v1/metrics, projectMetrics): counts per bucket, success rate, latency per destination, dead letters. */

type Range = 'HOUR' | 'DAY' | 'WEEK';
const RANGES: Array<{ value: Range; label: string }> = [
  { value: 'HOUR', label: 'Hour' },
  { value: 'DAY', label: 'Day' },
  { value: 'WEEK', label: 'Week' },
];

interface Counts {
  eventsReceived: number;
  eventsFiltered: number;
  deliveriesSucceeded: number;
  deliveriesFailed: number;
  deliveriesRetrying: number;
}
interface Metrics {
  bucketSeconds: number;
  from: string;
  to: string;
  buckets: Array<Counts & { start: string }>;
  totals: Counts & { successRate: number | null };
  latency: Array<{ destinationId: string; destinationName: string; attempts: number; p50Ms: number; p95Ms: number }>;
  deadLetters: number;
}

const COUNTS = 'eventsReceived eventsFiltered deliveriesSucceeded deliveriesFailed deliveriesRetrying';
const METRICS = gql`query ProjectMetrics($projectId: ID, $range: MetricsRange!, $endpointId: ID) {
  projectMetrics(projectId: $projectId, range: $range, endpointId: $endpointId) {
    bucketSeconds from to deadLetters
    buckets { start ${COUNTS} }
    totals { ${COUNTS} successRate }
    latency { destinationId destinationName attempts p50Ms p95Ms } } }`;
const ENDPOINTS = gql`query MetricsEndpoints($projectId: ID) { endpoints(projectId: $projectId, limit: 200) { data { id name } } }`;

const COLORS = { received: '#2457d6', filtered: '#98a2b3', ok: '#137333', bad: '#b42318', wait: '#c98a00', p95: '#7a5af8' };
const EVENT_SERIES: ChartSeries[] = [
  { label: 'received', color: COLORS.received },
  { label: 'filtered', color: COLORS.filtered },
];
const DELIVERY_SERIES: ChartSeries[] = [
  { label: outcomeLabel('delivered'), color: COLORS.ok },
  { label: outcomeLabel('failed'), color: COLORS.bad },
  { label: outcomeLabel('retrying'), color: COLORS.wait },
];
const RATE_SERIES: ChartSeries[] = [{ label: 'success rate', color: COLORS.ok, points: true }];
const LATENCY_SERIES: ChartSeries[] = [
  { label: 'p50', color: COLORS.received, bars: true },
  { label: 'p95', color: COLORS.p95, bars: true },
];
const capitalized = (outcome: Outcome) => outcomeLabel(outcome).replace(/^./, (c) => c.toUpperCase());
const percent = (v: number | null) => (v == null ? '—' : `${Math.round(v * 1000) / 10}%`);
const ms = (v: number | null) => (v == null ? '—' : v >= 1000 ? `${(v / 1000).toFixed(1)} s` : `${Math.round(v)} ms`);
const count = (v: number | null) => (v == null ? '—' : Number.isInteger(v) ? String(v) : '');

export function MetricsPage() {
  const [range, setRange] = useState<Range>('HOUR');
  // In the URL (`/project-metrics?endpoint=<id>`; not `/metrics`, which is the Prometheus endpoint), so the endpoint page can link to its own metrics.
  const [search, setSearch] = useSearchParams();
  const endpointId = search.get('endpoint') ?? '';
  const setEndpointId = (id: string) => setSearch(id ? { endpoint: id } : {}, { replace: true });
  const [{ data: endpoints }] = useProjectQuery<{ endpoints: { data: Array<{ id: string; name: string }> } }>(ENDPOINTS);
  const [{ data, error, fetching }, refetch] = useProjectQuery<{ projectMetrics: Metrics }>(METRICS, { range, endpointId: endpointId || null });
  // The newest bucket is still filling: re-read once a bucket of the shortest range (a minute) has passed.
  useEffect(() => {
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), 60_000);
    return () => clearInterval(timer);
  }, [refetch]);
  const m = data?.projectMetrics;
  const series = useMemo(() => (m ? chartData(m) : null), [m]);

  return (
    <Page
      title="Metrics"
      actions={
        <>
          <div className="segmented" role="group" aria-label="Range">
            {RANGES.map((r) => (
              <button key={r.value} type="button" className={r.value === range ? 'active' : undefined} aria-pressed={r.value === range} onClick={() => setRange(r.value)}>
                {r.label}
              </button>
            ))}
          </div>
          <select aria-label="Endpoint" value={endpointId} onChange={(e) => setEndpointId(e.target.value)}>
            <option value="">All endpoints</option>
            {endpoints?.endpoints.data.map((e) => (
              <option key={e.id} value={e.id}>
                {e.name}
              </option>
            ))}
          </select>
          <button type="button" className="small" onClick={() => refetch({ requestPolicy: 'network-only' })} disabled={fetching}>
            Refresh
          </button>
        </>
      }
    >
      <ErrorMessage error={error} />
      {m && series && (
        <>
          <div className="tiles" aria-label="Totals">
            <Tile label="Events received" value={m.totals.eventsReceived} />
            <Tile label={capitalized('filtered')} value={m.totals.eventsFiltered} />
            <Tile label={capitalized('delivered')} value={m.totals.deliveriesSucceeded} tone="ok" />
            <Tile label={capitalized('failed')} value={m.totals.deliveriesFailed} tone={m.totals.deliveriesFailed ? 'bad' : undefined} />
            <Tile label={capitalized('retrying')} value={m.totals.deliveriesRetrying} tone={m.totals.deliveriesRetrying ? 'wait' : undefined} />
            <Tile label="Success rate" value={percent(m.totals.successRate)} />
            <Tile label={`${capitalized('dead_lettered')} now`} value={<Link href="/dead-letters">{m.deadLetters}</Link>} tone={m.deadLetters ? 'bad' : undefined} />
          </div>
          <p className="muted">
            {new Date(m.from).toLocaleString()} – {new Date(m.to).toLocaleString()}, one point per {bucketLabel(m.bucketSeconds)}. Deliveries count attempts by outcome: delivered, failed for good, or retrying (failed, with a retry scheduled). Latency is the round trip of attempts that got an answer (not the wait for a relay listen CLI that was away or reconnecting).
          </p>
          {m.totals.eventsReceived === 0 && m.totals.deliveriesSucceeded + m.totals.deliveriesFailed + m.totals.deliveriesRetrying === 0 ? (
            <EmptyState title="Nothing in this range">
              Send an event to one of your <Link href="/endpoints">sources</Link> (its page has a Test button), or pick a longer range. A new project: <Link href="/start">get started</Link>.
            </EmptyState>
          ) : (
            <div className="charts">
              <Chart title="Events per bucket" data={series.events} series={EVENT_SERIES} value={count} />
              <Chart title="Deliveries per bucket" data={series.deliveries} series={DELIVERY_SERIES} value={count} />
              <Chart title="Success rate" data={series.rate} series={RATE_SERIES} value={percent} />
              {m.latency.length > 0 && (
                <Chart title="Attempt latency per destination" data={series.latency} series={LATENCY_SERIES} value={ms} categories={series.destinations} />
              )}
            </div>
          )}
          <h2>Latency per destination</h2>
          <Table
            label="Latency per destination"
            rows={m.latency}
            rowKey={(l) => l.destinationId}
            empty={<EmptyState title="No attempts in this range">Latency appears once deliveries are attempted.</EmptyState>}
            columns={[
              { header: 'Destination', cell: (l) => <Link href={`/destinations/${l.destinationId}`}>{l.destinationName}</Link> },
              { header: 'Attempts', cell: (l) => l.attempts, className: 'num' },
              { header: 'p50', cell: (l) => ms(l.p50Ms), className: 'num' },
              { header: 'p95', cell: (l) => ms(l.p95Ms), className: 'num' },
            ]}
          />
        </>
      )}
      {!m && !error && <div className="loading">Loading…</div>}
    </Page>
  );
}

function Tile({ label, value, tone }: { label: string; value: ReactNode; tone?: 'ok' | 'bad' | 'wait' }) {
  return (
    <div className={`tile${tone ? ` ${tone}` : ''}`}>
      <div className="tile-value">{value}</div>
      <div className="tile-label">{label}</div>
    </div>
  );
}

function bucketLabel(seconds: number): string {
  return seconds % 3600 === 0 ? `${seconds / 3600} h` : `${seconds / 60} min`;
}

/** uPlot's column form: x (bucket start, unix seconds) then one array per series. */
function chartData(m: Metrics): { events: AlignedData; deliveries: AlignedData; rate: AlignedData; latency: AlignedData; destinations: string[] } {
  const x = m.buckets.map((b) => Date.parse(b.start) / 1000);
  const pick = (key: keyof Counts) => m.buckets.map((b) => b[key]);
  const rate = m.buckets.map((b) => {
    const finished = b.deliveriesSucceeded + b.deliveriesFailed;
    return finished ? b.deliveriesSucceeded / finished : null;
  });
  return {
    events: [x, pick('eventsReceived'), pick('eventsFiltered')],
    deliveries: [x, pick('deliveriesSucceeded'), pick('deliveriesFailed'), pick('deliveriesRetrying')],
    rate: [x, rate],
    // Half a slot of empty x on each side, so that the first and last bars are not cut at the edges.
    latency: [
      [-0.5, ...m.latency.map((_, i) => i), m.latency.length - 0.5],
      [null, ...m.latency.map((l) => l.p50Ms), null],
      [null, ...m.latency.map((l) => l.p95Ms), null],
    ],
    destinations: m.latency.map((l) => l.destinationName),
  };
}
