import { StatusBadge } from './display';

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

/** circuit state (destinations) or CLI presence (cli destinations), as one badge. */
export function HealthBadge({ health, circuit }: { health?: Health; circuit?: { state: string } }) {
  if (health?.cliOnline != null) return <StatusBadge status={health.cliOnline ? 'online' : 'offline'} />;
  if (health?.failingSince) return <StatusBadge status="failing" />;
  if (circuit && circuit.state !== 'closed') return <StatusBadge status={`circuit ${circuit.state.replace('_', '-')}`} />;
  return health?.attempts24h ? <StatusBadge status="healthy" /> : <span className="muted">—</span>;
}

/** The detail pages' health card. */
export function HealthCard({
  health,
  circuit,
  extra = [],
}: {
  health?: Health;
  circuit?: { state: string; consecutiveFailures: number; nextProbeAt: string | null; lastError: string | null };
  /** Rows the page adds at the end (a destination's issues). */
  extra?: [string, React.ReactNode][];
}) {
  if (!health) return null;
  const rows: [string, React.ReactNode][] = [
    ['state', <HealthBadge health={health} circuit={circuit} key="s" />],
    ['success rate (24 h)', `${successRate(health)} of ${health.attempts24h} attempts`],
    ['p95 latency (24 h)', p95(health)],
    ['last error', health.lastError ? `${health.lastError} (${new Date(health.lastErrorAt!).toLocaleString()})` : 'none'],
    ['failing since', health.failingSince ? new Date(health.failingSince).toLocaleString() : '—'],
  ];
  if (circuit) rows.push(['circuit', `${circuit.state.replace('_', '-')}${circuit.consecutiveFailures ? `, ${circuit.consecutiveFailures} failures in a row` : ''}${circuit.nextProbeAt ? `, next probe ${new Date(circuit.nextProbeAt).toLocaleTimeString()}` : ''}`]);
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
