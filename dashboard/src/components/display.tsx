import type { ReactNode } from 'react';
import { ATTEMPT_STATUS_OUTCOMES, type AttemptOutcomeWord, type AttemptStatusName, deliveryOutcome, OUTCOME_WORDS, type DeliveryStatusName } from '../../../packages/cli/src/shared/outcomes';
import type { EventOutcomeFields } from '../lib/types';
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

/** States that are not outcomes (those are OutcomeBadge's). */
const STATUS_CLASS: Record<string, string> = {
  active: 'ok',
  inactive: 'muted',
  // Invites
  pending: 'wait',
  // Health (src/components/health.tsx)
  online: 'ok',
  offline: 'muted',
  healthy: 'ok',
  failing: 'bad',
  'circuit open': 'bad',
  'circuit half-open': 'wait',
  degraded: 'wait',
};

export function StatusBadge({ status, title }: { status: string; title?: string }) {
  return (
    <span className={`badge ${STATUS_CLASS[status] ?? ''}`} title={title}>
      {status.replace(/_/g, ' ')}
    </span>
  );
}

/** An outcome word (packages/cli/src/shared/outcomes.ts), its meaning on hover. */
export function OutcomeBadge({ outcome }: { outcome: AttemptOutcomeWord }) {
  const word = OUTCOME_WORDS[outcome];
  return (
    <span className={`badge ${word.tone}`} title={word.meaning} data-outcome={outcome}>
      {word.label}
    </span>
  );
}

/** A delivery's stored status, in the outcome words. */
export function DeliveryBadge({ status, deadLettered = false }: { status: string; deadLettered?: boolean }) {
  return <OutcomeBadge outcome={deliveryOutcome(status as DeliveryStatusName, deadLettered)} />;
}

/** An attempt's stored status, in the outcome words (`rate_limited` included). */
export function AttemptBadge({ status }: { status: string }) {
  return <OutcomeBadge outcome={ATTEMPT_STATUS_OUTCOMES[status as AttemptStatusName]} />;
}

/** The response code of the delivery the outcome comes from, and whose it is (never another destination's code alone). */
export function ResponseFrom({ event }: { event: EventOutcomeFields }) {
  const to = event.outcomeDestination;
  if (!to) return <span className="muted">—</span>;
  const others = event.destinationCount - 1;
  const waiting = event.lastStatusCode === null && event.outcome === 'pending';
  const answer = waiting ? 'not sent yet' : (event.lastStatusCode ?? 'no response');
  return (
    <span data-testid="response-from">
      {answer}{' '}
      <span className="muted">
        {waiting ? 'to' : 'from'} {to.name}
        {others > 0 ? ` (+${countOf(others, 'other')})` : ''}
      </span>
    </span>
  );
}

/** "1 delivery", "2 deliveries": a count with its noun in the right number. */
export function countOf(count: number, one: string, many = `${one}s`): string {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * An id too long for a table column (a UUID): its first 8 and last 6 characters, the whole id on hover.
 * UUIDv7s of the same weeks share their first characters (a timestamp): the end tells them apart.
 */
export function ShortId({ id }: { id: string }) {
  return (
    <span className="mono" title={id}>
      {id.length > 16 ? `${id.slice(0, 8)}…${id.slice(-6)}` : id}
    </span>
  );
}

/** A delivery's Temporal workflow in the Temporal web UI (a new tab); nothing when the service does not know the UI's address. */
export function WorkflowLink({ url, children = 'Temporal workflow' }: { url: string | null | undefined; children?: ReactNode }) {
  if (!url) return null;
  return (
    <a href={url} target="_blank" rel="noopener noreferrer" className="external" data-testid="workflow-link">
      {children}
      <span className="sr-only"> (opens in a new tab)</span>
    </a>
  );
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
