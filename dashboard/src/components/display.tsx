import type { ReactNode } from 'react';
import { CopyButton } from './buttons';

/** A page body with its title and the actions on the right. */
export function Page({ title, actions, children }: { title: ReactNode; actions?: ReactNode; children: ReactNode }) {
  return (
    <section className="page">
      <header className="page-head">
        <h1>{title}</h1>
        {actions && <div className="actions">{actions}</div>}
      </header>
      {children}
    </section>
  );
}

const STATUS_CLASS: Record<string, string> = {
  success: 'ok',
  received: 'ok',
  active: 'ok',
  inactive: 'muted',
  failed: 'bad',
  canceled: 'muted',
  filtered: 'muted',
  queued: 'wait',
  retrying: 'wait',
  skipped: 'muted',
  // Event outcomes (src/events/event-outcome.ts)
  delivered: 'ok',
  dead_lettered: 'bad',
  quarantined: 'bad',
  pending: 'wait',
  no_destination: 'muted',
  // Health (src/components/health.tsx)
  online: 'ok',
  offline: 'muted',
  healthy: 'ok',
  failing: 'bad',
  'circuit open': 'bad',
  'circuit half-open': 'wait',
};

export function StatusBadge({ status }: { status: string }) {
  return <span className={`badge ${STATUS_CLASS[status] ?? ''}`}>{status.replace(/_/g, ' ')}</span>;
}

/** An ISO timestamp as local time; the exact value on hover. */
export function Time({ value }: { value: string | null | undefined }) {
  if (!value) return <span className="muted">—</span>;
  const date = new Date(value);
  return (
    <time dateTime={value} title={value}>
      {date.toLocaleString(undefined, { dateStyle: 'short', timeStyle: 'medium' })}
    </time>
  );
}

/** Pretty-printed JSON with a copy button. */
export function JsonView({ value, label = 'Copy JSON' }: { value: unknown; label?: string }) {
  const text = typeof value === 'string' ? value : JSON.stringify(value, null, 2);
  return (
    <div className="json">
      <div className="json-tools">
        <CopyButton value={text ?? ''} label={label} />
      </div>
      <pre>{text}</pre>
    </div>
  );
}

/** Key/value pairs (headers, settings) as a compact definition list. */
export function KeyValues({ values }: { values: Record<string, unknown> }) {
  const entries = Object.entries(values);
  if (entries.length === 0) return <span className="muted">none</span>;
  return (
    <dl className="kv">
      {entries.map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          <dd>{typeof v === 'string' ? v : JSON.stringify(v)}</dd>
        </div>
      ))}
    </dl>
  );
}
