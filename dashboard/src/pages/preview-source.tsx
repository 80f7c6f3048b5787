import { useEffect, useState } from 'react';
import { gql } from 'urql';
import { Field, JsonView } from '../components';
import { useProjectQuery } from '../lib/hooks';

/**
 * "Run against": a sample payload typed in the editor or one of the project's
 * recent stored events. Shared by the template and transform editors.
 */

const RECENT_EVENTS = gql`query RecentEvents($projectId: ID) {
  events(projectId: $projectId, limit: 25) { data { id eventType createdAt } } }`;

const EVENT_PAYLOAD = gql`query PreviewEventPayload($projectId: ID, $id: ID!) { event(projectId: $projectId, id: $id) { id payload } }`;

export type PreviewSource = { eventId: string } | { payload: unknown } | { invalid: string };

export const DEFAULT_SAMPLE = '{\n  "action": "opened",\n  "repository": { "name": "relay" },\n  "sender": { "login": "octo" }\n}';

export function PreviewSourcePicker({ onChange }: { onChange: (source: PreviewSource) => void }) {
  const [{ data }] = useProjectQuery<{ events: { data: Array<{ id: string; eventType: string; createdAt: string }> } }>(RECENT_EVENTS);
  const [eventId, setEventId] = useState('');
  const [sample, setSample] = useState(DEFAULT_SAMPLE);
  const source = parseSource(eventId, sample);
  const key = JSON.stringify(source);
  useEffect(() => onChange(source), [key]);
  const events = data?.events.data ?? [];
  return (
    <div className="form">
      <Field label="Run against" field="eventId" hint={events.length === 0 ? 'No stored events yet: send one to an endpoint, or use the sample payload.' : undefined}>
        <select value={eventId} onChange={(e) => setEventId(e.target.value)} aria-label="Run against">
          <option value="">Sample payload (below)</option>
          {events.map((e) => (
            <option key={e.id} value={e.id}>
              {new Date(e.createdAt).toLocaleString()} · {e.eventType || '(no type)'} · {e.id.slice(-8)}
            </option>
          ))}
        </select>
      </Field>
      {eventId && <StoredInput eventId={eventId} />}
      {!eventId && (
        <Field label="Sample payload (JSON)" field="payload" hint={'invalid' in source ? <span className="field-error">{source.invalid}</span> : undefined}>
          <textarea aria-label="Sample payload" value={sample} onChange={(e) => setSample(e.target.value)} rows={8} spellCheck={false} />
        </Field>
      )}
    </div>
  );
}

/** The input pane: the stored event's payload the expression runs against. */
function StoredInput({ eventId }: { eventId: string }) {
  const [{ data }] = useProjectQuery<{ event: { payload: unknown } }>(EVENT_PAYLOAD, { id: eventId });
  return (
    <section aria-label="Input" data-testid="preview-input">
      <h2>Input</h2>
      {data ? <JsonView value={data.event.payload} label="Copy input" /> : <div className="loading">Loading…</div>}
    </section>
  );
}

function parseSource(eventId: string, sample: string): PreviewSource {
  if (eventId) return { eventId };
  try {
    return { payload: JSON.parse(sample) as unknown };
  } catch (err) {
    return { invalid: `Not JSON: ${(err as Error).message}` };
  }
}
