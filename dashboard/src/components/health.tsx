import { countOf, StatusBadge } from './display';

/** The GraphQL `health { … }` of destinations and endpoints (src/resource-health). */
export interface Health {
  attempts24h: number;
  successRate24h: number | null;
  p95LatencyMs24h: number | null;
  lastError: string | null;
  lastErrorAt: string | null;
  failingSince: string | null;
  cliOnline: boolean | null;
}
export const HEALTH_FIELDS = 'health { attempts24h successRate24h p95LatencyMs24h lastError lastErrorAt failingSince cliOnline }';

export const successRate = (h: Health | undefined) => (h?.successRate24h == null ? '—' : `${(h.successRate24h * 100).toFixed(h.successRate24h === 1 ? 0 : 1)}%`);
export const p95 = (h: Health | undefined) => (h?.p95LatencyMs24h == null ? '—' : `${h.p95LatencyMs24h} ms`);

/** A success rate (24 h) below this reads as degraded, even when the newest attempt went through. */
const DEGRADED_BELOW = 0.9;

/**
 * One word for a destination's (or an endpoint's) health and why, the same on the lists and the detail pages:
 * CLI presence (cli destinations); failing while the newest attempt failed; the circuit when not closed;
 * degraded with open issues or a success rate (24 h) below 90 %; else healthy once anything was attempted.
 */
export function healthVerdict(health: Health | undefined, circuit?: { state: string }, openIssues = 0): { status: string; reason: string } | null {
  if (!health) return null;
  if (health.cliOnline != null) return { status: health.cliOnline ? 'online' : 'offline', reason: health.cliOnline ? 'a relay listen holds it' : 'no relay listen holds it' };
  if (health.failingSince) return { status: 'failing', reason: 'the newest attempt failed' };
  if (circuit && circuit.state !== 'closed') return { status: `circuit ${circuit.state.replace('_', '-')}`, reason: 'attempts wait for the circuit to close' };
  const rate = health.successRate24h;
  const delivered = `${successRate(health)} of ${countOf(health.attempts24h, 'attempt')} delivered in 24 h`;
  if (openIssues > 0) return { status: 'degraded', reason: `${countOf(openIssues, 'open issue')}; ${delivered}` };
  if (rate != null && rate < DEGRADED_BELOW) return { status: 'degraded', reason: delivered };
  return health.attempts24h ? { status: 'healthy', reason: delivered } : null;
}

/** The health verdict as one badge, its reason on hover. */
export function HealthBadge({ health, circuit, openIssues }: { health?: Health; circuit?: { state: string }; openIssues?: number }) {
  const verdict = healthVerdict(health, circuit, openIssues);
  return verdict ? <StatusBadge status={verdict.status} title={verdict.reason} /> : <span className="muted">—</span>;
}

/** The detail pages' health card. */
export function HealthCard({
  health,
  circuit,
  openIssues,
  extra = [],
}: {
  health?: Health;
  circuit?: { state: string; consecutiveFailures: number; nextProbeAt: string | null; lastError: string | null };
  /** A destination's open issues: they make it degraded, as on the Destinations list. */
  openIssues?: number;
  /** Rows the page adds at the end (a destination's issues). */
  extra?: [string, React.ReactNode][];
}) {
  if (!health) return null;
  const verdict = healthVerdict(health, circuit, openIssues);
  const rows: [string, React.ReactNode][] = [
    ['state', verdict ? <span key="s" className="row"><StatusBadge status={verdict.status} /> <span className="muted">{verdict.reason}</span></span> : '—'],
    ['success rate (24 h)', `${successRate(health)} of ${countOf(health.attempts24h, 'attempt')}`],
    ['p95 latency (24 h)', p95(health)],
    ['last error', health.lastError ? `${health.lastError} (${new Date(health.lastErrorAt!).toLocaleString()})` : 'none'],
    ['failing since', health.failingSince ? new Date(health.failingSince).toLocaleString() : '—'],
  ];
  if (circuit) rows.push(['circuit', `${circuit.state.replace('_', '-')}${circuit.consecutiveFailures ? `, ${countOf(circuit.consecutiveFailures, 'failure')} in a row` : ''}${circuit.nextProbeAt ? `, next probe ${new Date(circuit.nextProbeAt).toLocaleTimeString()}` : ''}`]);
  if (health.cliOnline != null) rows.push(['CLI', health.cliOnline ? 'online (a relay listen holds it)' : 'offline']);
  rows.push(...extra);
  return (
    <section className="card" aria-label="Health" data-testid="health">
      <h2>Health</h2>
      <dl className="kv">
        {rows.map(([k, v]) => (
          <div key={k}>
            <dt>{k}</dt>
            <dd>{v}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
}
