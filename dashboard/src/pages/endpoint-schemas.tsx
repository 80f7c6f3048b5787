import { type FormEvent, useState } from 'react';
import { gql } from 'urql';
import { Link } from 'wouter';
import { typescriptModule, type InferredJsonSchema } from '../../../packages/cli/src/shared/schema-typescript';
import { Can, EmptyState, ErrorMessage, Field, JsonView, Table, Time } from '../components';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';

/**
 * A source's event types with their inferred schemas, examples, counts and drift history, and its
 * schema and silence alert settings (docs/schemas.md).
 */

const SCHEMAS = gql`
  query SourceSchemas($projectId: ID, $endpointId: ID!) {
    sourceSchemas(projectId: $projectId, endpointId: $endpointId) {
      source { id name slug schemaAlerts silenceAlerts expectedIntervalSeconds }
      activity { eventCount untrackedEventCount lastEventAt learnedIntervalSeconds expectedWithinSeconds silentSince }
      warmupEvents
      data { id eventType eventCount learnedCount warm lastSeenAt pathCount truncated pendingChanges lastChangeAt examples { eventId } }
    }
  }
`;
const SCHEMA = gql`
  query EventSchema($projectId: ID, $id: ID!) {
    eventSchema(projectId: $projectId, id: $id) {
      id eventType pendingChanges jsonSchema
      paths { path types count frequency required firstSeenAt lastSeenAt }
      examples { eventId count firstSeenAt lastSeenAt }
      changes { id kind added removed retyped { path from to } eventId detectedAt alerted issueId acceptedAt }
    }
  }
`;
const ACCEPT = gql`mutation AcceptSchemaChanges($projectId: ID, $id: ID!) { acceptSchemaChanges(projectId: $projectId, id: $id) { id pendingChanges } }`;
const UPDATE = gql`
  mutation UpdateSourceAlerts($projectId: ID, $id: ID!, $input: EndpointInput!) {
    updateEndpoint(projectId: $projectId, id: $id, input: $input) { id schemaAlerts silenceAlerts expectedIntervalSeconds }
  }
`;

interface Summary {
  id: string;
  eventType: string;
  eventCount: number;
  learnedCount: number;
  warm: boolean;
  lastSeenAt: string;
  pathCount: number;
  truncated: boolean;
  pendingChanges: number;
  lastChangeAt: string | null;
  examples: { eventId: string }[];
}
interface SourceSchemas {
  source: { id: string; name: string; slug: string; schemaAlerts: string; silenceAlerts: string; expectedIntervalSeconds: number | null };
  activity: { eventCount: number; untrackedEventCount: number; lastEventAt: string | null; learnedIntervalSeconds: number | null; expectedWithinSeconds: number | null; silentSince: string | null };
  warmupEvents: number;
  data: Summary[];
}
interface PathRow {
  path: string;
  types: Record<string, number>;
  count: number;
  frequency: number;
  required: boolean;
  firstSeenAt: string;
  lastSeenAt: string;
}
interface Change {
  id: string;
  kind: 'changed' | 'new_event_type';
  added: string[];
  removed: string[];
  retyped: { path: string; from: string[]; to: string[] }[];
  eventId: string;
  detectedAt: string;
  alerted: boolean;
  issueId: string | null;
  acceptedAt: string | null;
}
interface Detail {
  id: string;
  eventType: string;
  pendingChanges: number;
  jsonSchema: InferredJsonSchema;
  paths: PathRow[];
  examples: { eventId: string; count: number; firstSeenAt: string; lastSeenAt: string }[];
  changes: Change[];
}

/** 21600 → "6 h". */
export function duration(seconds: number): string {
  if (seconds % 86_400 === 0) return `${seconds / 86_400} d`;
  if (seconds % 3600 === 0) return `${seconds / 3600} h`;
  if (seconds >= 3600) return `${(seconds / 3600).toFixed(1)} h`;
  if (seconds % 60 === 0) return `${seconds / 60} min`;
  return `${seconds} s`;
}

/** Example events listed (one per distinct shape, the most frequent first). */
const EXAMPLES_SHOWN = 5;

const typeLabel = (t: string) => (t === '' ? '(no type)' : t);

export function EndpointSchemas({ endpointId }: { endpointId: string }) {
  const [{ data, error }, refetch] = useProjectQuery<{ sourceSchemas: SourceSchemas }>(SCHEMAS, { endpointId }, { requestPolicy: 'cache-and-network' });
  const [open, setOpen] = useState<string | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const schemas = data?.sourceSchemas;
  if (!schemas) return error ? <ErrorMessage error={error} /> : <div className="loading">Loading…</div>;
  const selected = schemas.data.find((s) => s.id === open);
  return (
    <section aria-label="Event types and schemas">
      <SourceWatch schemas={schemas} onSaved={reload} />
      <Table
        label="Event types"
        rows={schemas.data}
        rowKey={(s) => s.id}
        rowClassName={(s) => (s.id === open ? 'selected' : undefined)}
        empty={
          <EmptyState title="No event types learned yet">
            As this source receives events, the relay learns the shape of each event type: every JSON path, its types, how often it is present. It then tells you (an issue,
            and an operational event) when a provider removes or retypes a field or sends a new event type, and when the source goes quiet for longer than expected.
          </EmptyState>
        }
        columns={[
          {
            header: 'Event type',
            className: 'mono',
            cell: (s) => (
              <button type="button" className="link" aria-expanded={s.id === open} onClick={() => setOpen(s.id === open ? null : s.id)}>
                {typeLabel(s.eventType)}
              </button>
            ),
          },
          { header: 'Events', cell: (s) => s.eventCount, className: 'num' },
          {
            header: 'Learned',
            cell: (s) => (s.warm ? s.learnedCount : <span className="badge wait">learning {s.learnedCount}/{schemas.warmupEvents}</span>),
            className: 'num',
          },
          { header: 'Paths', cell: (s) => `${s.pathCount}${s.truncated ? ' (full)' : ''}`, className: 'num hide-narrow' },
          { header: 'Last seen', cell: (s) => <Time value={s.lastSeenAt} /> },
          {
            header: 'Changes',
            cell: (s) =>
              s.pendingChanges > 0 ? (
                <span className="badge bad">{s.pendingChanges} to review</span>
              ) : s.lastChangeAt ? (
                <span className="muted">
                  last <Time value={s.lastChangeAt} />
                </span>
              ) : (
                <span className="muted">none</span>
              ),
          },
          { header: 'Example', cell: (s) => (s.examples[0] ? <Link href={`/events/${s.examples[0].eventId}`}>event</Link> : '—'), className: 'hide-narrow' },
        ]}
      />
      {schemas.activity.untrackedEventCount > 0 && (
        <p className="muted">{schemas.activity.untrackedEventCount} events of further event types were counted but not learned (a source keeps at most 100 event types).</p>
      )}
      {selected && <SchemaDetail key={selected.id} id={selected.id} source={schemas.source} onChanged={reload} />}
    </section>
  );
}

/** When the source last sent, what silence means for it, and its alert settings. */
function SourceWatch({ schemas, onSaved }: { schemas: SourceSchemas; onSaved: () => void }) {
  const { activity, source } = schemas;
  const expectation =
    activity.expectedWithinSeconds !== null
      ? `alerts after ${duration(activity.expectedWithinSeconds)} without an event (${source.silenceAlerts === 'learned' ? 'learned from its history' : 'expected interval'})`
      : source.silenceAlerts === 'learned'
        ? 'learning when events usually come (100 events over a day are needed)'
        : 'off';
  return (
    <div className="card" data-testid="source-watch">
      <div className="row">
        <span>
          Last event: <Time value={activity.lastEventAt} />
        </span>
        <span>Silence: {expectation}</span>
        {activity.silentSince && (
          <span className="badge bad">
            silent since <Time value={activity.silentSince} />
          </span>
        )}
      </div>
      <Can permission="write">
        <AlertSettings source={source} onSaved={onSaved} />
      </Can>
    </div>
  );
}

function AlertSettings({ source, onSaved }: { source: SourceSchemas['source']; onSaved: () => void }) {
  const [schemaAlerts, setSchemaAlerts] = useState(source.schemaAlerts);
  const [silenceAlerts, setSilenceAlerts] = useState(source.silenceAlerts);
  const [hours, setHours] = useState(source.expectedIntervalSeconds ? String(source.expectedIntervalSeconds / 3600) : '');
  const [saved, setSaved] = useState(false);
  const [state, update] = useProjectMutation(UPDATE);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const seconds = hours ? Math.round(Number(hours) * 3600) : null;
    const input = { schemaAlerts, silenceAlerts, ...(silenceAlerts === 'expected_interval' ? { expectedIntervalSeconds: seconds } : {}) };
    const result = await update({ id: source.id, input });
    setSaved(!result.error);
    if (!result.error) onSaved();
  };
  return (
    <form className="filters form" onSubmit={submit} aria-label="Schema and silence alerts">
      <Field label="Payload changes alert on" field="schemaAlerts" error={state.error}>
        <select value={schemaAlerts} onChange={(e) => setSchemaAlerts(e.target.value)}>
          <option value="changes">removed or retyped fields, new event types</option>
          <option value="all">those, and added fields</option>
          <option value="off">nothing (recorded only)</option>
        </select>
      </Field>
      <Field label="Silence" field="silenceAlerts" error={state.error}>
        <select value={silenceAlerts} onChange={(e) => setSilenceAlerts(e.target.value)}>
          <option value="learned">learned from its history</option>
          <option value="expected_interval">at least one event every…</option>
          <option value="off">no alert</option>
        </select>
      </Field>
      {silenceAlerts === 'expected_interval' && (
        <Field label="Hours" field="expectedIntervalSeconds" error={state.error} hint="e.g. 6: at least one event every 6 hours">
          <input type="number" min={0.01} step="any" value={hours} onChange={(e) => setHours(e.target.value)} />
        </Field>
      )}
      <div className="row">
        <button type="submit" disabled={state.fetching}>
          Save alerts
        </button>
        {saved && <span className="muted">Saved.</span>}
      </div>
      <ErrorMessage error={state.error} fields={['schemaAlerts', 'silenceAlerts', 'expectedIntervalSeconds']} />
    </form>
  );
}

const typesText = (types: Record<string, number>) =>
  Object.entries(types)
    .map(([t, n]) => `${t} ${n}`)
    .join(' · ');

/** One event type: its paths, examples, drift history (accept), its JSON Schema and TypeScript. */
function SchemaDetail({ id, source, onChanged }: { id: string; source: SourceSchemas['source']; onChanged: () => void }) {
  const [{ data, error }, refetch] = useProjectQuery<{ eventSchema: Detail }>(SCHEMA, { id }, { requestPolicy: 'network-only' });
  const [accepted, accept] = useProjectMutation<{ acceptSchemaChanges: { id: string } }>(ACCEPT);
  const schema = data?.eventSchema;
  if (!schema) return error ? <ErrorMessage error={error} /> : <div className="loading">Loading…</div>;
  const doAccept = async () => {
    if ((await accept({ id })).data) {
      refetch({ requestPolicy: 'network-only' });
      onChanged();
    }
  };
  return (
    <div className="card" data-testid="schema-detail">
      <h3>
        <span className="mono">{typeLabel(schema.eventType)}</span>: inferred schema
      </h3>
      <p className="muted">
        Examples:{' '}
        {schema.examples.slice(0, EXAMPLES_SHOWN).map((e, i) => (
          <span key={e.eventId}>
            {i > 0 && ', '}
            <Link href={`/events/${e.eventId}`}>{i === 0 ? 'the most frequent shape' : `shape ${i + 1}`}</Link> ({e.count})
          </span>
        ))}
        {schema.examples.length > EXAMPLES_SHOWN && `, and ${schema.examples.length - EXAMPLES_SHOWN} more shapes`}
      </p>
      <h3>Drift history</h3>
      <ErrorMessage error={accepted.error} />
      {schema.pendingChanges > 0 && (
        <Can permission="write">
          <div className="row">
            <button type="button" className="primary" disabled={accepted.fetching} onClick={doAccept}>
              Accept changes
            </button>
            <span className="muted">The new shape becomes the expected one; the issue resolves.</span>
          </div>
        </Can>
      )}
      <Table
        label={`Changes of ${typeLabel(schema.eventType)}`}
        rows={schema.changes}
        rowKey={(c) => c.id}
        empty={<p className="muted">No change since the warm-up.</p>}
        columns={[
          { header: 'Detected', cell: (c) => <Time value={c.detectedAt} /> },
          { header: 'Change', cell: (c) => <ChangeText change={c} />, className: 'wrap' },
          { header: 'Event', cell: (c) => <Link href={`/events/${c.eventId}`}>event</Link> },
          {
            header: 'Alert',
            cell: (c) => (c.issueId ? <Link href={`/issues/${c.issueId}`}>{c.alerted ? 'issue' : 'issue (ignored)'}</Link> : <span className="muted">recorded</span>),
          },
          { header: 'Accepted', cell: (c) => (c.acceptedAt ? <Time value={c.acceptedAt} /> : c.alerted ? <span className="badge bad">no</span> : '—') },
        ]}
      />
      <h3>Paths</h3>
      <Table
        label={`Paths of ${typeLabel(schema.eventType)}`}
        rows={schema.paths}
        rowKey={(p) => p.path}
        columns={[
          { header: 'Path', cell: (p) => p.path, className: 'mono wrap' },
          { header: 'Types', cell: (p) => typesText(p.types), className: 'mono' },
          { header: 'Present', cell: (p) => (p.required ? 'always' : `${Math.round(p.frequency * 100)} %`), className: 'num' },
          { header: 'First seen', cell: (p) => <Time value={p.firstSeenAt} />, className: 'hide-narrow' },
          { header: 'Last seen', cell: (p) => <Time value={p.lastSeenAt} />, className: 'hide-narrow' },
        ]}
      />
      <details>
        <summary>JSON Schema</summary>
        <JsonView value={schema.jsonSchema} />
      </details>
      <details>
        <summary>TypeScript</summary>
        <pre className="mono">{typescriptModule(source, [{ eventType: schema.eventType, jsonSchema: schema.jsonSchema }], new Date().toISOString())}</pre>
      </details>
    </div>
  );
}

function ChangeText({ change }: { change: Change }) {
  if (change.kind === 'new_event_type') return <>new event type</>;
  return (
    <>
      {change.removed.length > 0 && <div>removed: <span className="mono">{change.removed.join(', ')}</span></div>}
      {change.retyped.map((r) => (
        <div key={r.path}>
          retyped: <span className="mono">{r.path}</span> {r.from.join('|')} → {r.to.join('|')}
        </div>
      ))}
      {change.added.length > 0 && <div>added: <span className="mono">{change.added.join(', ')}</span></div>}
    </>
  );
}
