import { useState, type FormEvent } from 'react';
import { gql } from 'urql';
import { Link, useParams } from 'wouter';
import {
  BuilderFrame,
  Can,
  ConfirmButton,
  CopyButton,
  ErrorMessage,
  Field,
  FieldError,
  fitsTypingRules,
  type Health,
  HEALTH_FIELDS,
  HealthCard,
  JsonView,
  KeyValues,
  LiveIndicator,
  Page,
  RulesBuilder,
  rulesProblem,
  SecretOnce,
  OutcomeBadge,
  ResponseFrom,
  ShortId,
  StatusBadge,
  Table,
  Time,
  type TypingRule,
  useBuilder,
} from '../components';
import { useOnReconnect } from '../lib/connection';
import { useProjectMutation, useProjectQuery, useProjectSubscription } from '../lib/hooks';
import { EVENT_ROW_FIELDS, type EventRow } from '../lib/types';
import { providerLabel, signedCurl } from '../lib/providers';
import { EndpointFilters } from './endpoint-filters';
import { EndpointLinks } from './endpoint-links';
import { EndpointSchemas } from './endpoint-schemas';

const ENDPOINT_FIELDS = 'id name slug ingressUrl system provider isActive hasSigningSecret previousSecretExpiresAt eventTypePath eventTypeHeader typingRules createdAt updatedAt';
const ENDPOINT = gql`
  query Endpoint($projectId: ID, $id: ID!) { endpoint(projectId: $projectId, id: $id) { ${ENDPOINT_FIELDS} ${HEALTH_FIELDS} } }
`;
const UPDATE = gql`
  mutation UpdateEndpoint($projectId: ID, $id: ID!, $input: EndpointInput!) { updateEndpoint(projectId: $projectId, id: $id, input: $input) { ${ENDPOINT_FIELDS} } }
`;
const ROTATE = gql`
  mutation RotateEndpointSecret($projectId: ID, $id: ID!, $input: RotateEndpointSecretInput) {
    rotateEndpointSecret(projectId: $projectId, id: $id, input: $input) { id signingSecret hasSigningSecret previousSecretExpiresAt }
  }
`;
const SEND_TEST = gql`
  mutation SendTestEvent($projectId: ID, $endpointId: ID!) { sendTestEvent(projectId: $projectId, endpointId: $endpointId) { eventId } }
`;
const RECENT_EVENTS = gql`
  query EndpointEvents($projectId: ID, $endpointId: ID) { events(projectId: $projectId, endpointId: $endpointId, limit: 10) { data { ${EVENT_ROW_FIELDS} } } }
`;
const EVENT_RECEIVED = gql`
  subscription EndpointEventReceived($projectId: ID, $endpointId: ID) { eventReceived(projectId: $projectId, endpointId: $endpointId) { ${EVENT_ROW_FIELDS} } }
`;

export interface EndpointDetail {
  id: string;
  name: string;
  slug: string;
  /** Null for the system source, which receives no requests. */
  ingressUrl: string | null;
  system: boolean;
  provider: string | null;
  isActive: boolean;
  hasSigningSecret: boolean;
  previousSecretExpiresAt: string | null;
  eventTypePath: string | null;
  eventTypeHeader: string | null;
  typingRules: unknown[];
  createdAt: string;
  updatedAt: string;
}

/** One endpoint: ingress URL, Test button with live events, settings, secret rotation, filters and linked destinations. */
export function EndpointPage() {
  const { id } = useParams<{ id: string }>();
  const [{ data, error }] = useProjectQuery<{ endpoint: EndpointDetail & { health?: Health } }>(ENDPOINT, { id });
  const [updated, update] = useProjectMutation<{ updateEndpoint: EndpointDetail }>(UPDATE);
  const [tested, sendTest] = useProjectMutation<{ sendTestEvent: { eventId: string } }>(SEND_TEST);
  const endpoint = data?.endpoint;
  if (!endpoint) return <Page title="Endpoint">{error ? <ErrorMessage error={error} /> : <div className="loading">Loading…</div>}</Page>;

  return (
    <Page
      title={
        <>
          {endpoint.name} <StatusBadge status={endpoint.isActive ? 'active' : 'inactive'} />
        </>
      }
      actions={
        <>
          <Link href={`/project-metrics?endpoint=${endpoint.id}`}>
            Metrics
          </Link>
          <Can permission="write">
            {!endpoint.system && (
              <button type="button" className="primary" disabled={!endpoint.isActive || tested.fetching} onClick={() => sendTest({ endpointId: endpoint.id })}>
                Test
              </button>
            )}
            {endpoint.isActive ? (
              <ConfirmButton
                danger
                onConfirm={() => update({ id: endpoint.id, input: { isActive: false } })}
                confirmText={endpoint.system ? 'No operational events will be emitted: deactivate?' : 'Ingress will answer 404: deactivate?'}
              >
                Deactivate
              </ConfirmButton>
            ) : (
              <button type="button" onClick={() => update({ id: endpoint.id, input: { isActive: true } })}>
                Activate
              </button>
            )}
          </Can>
        </>
      }
    >
      <ErrorMessage error={tested.error ?? (updated.error && !updated.error.graphQLErrors[0]?.extensions?.details ? updated.error : undefined)} />
      {tested.data && (
        <div className="notice" data-testid="test-sent">
          Test event sent: <Link href={`/events/${tested.data.sendTestEvent.eventId}`}>{tested.data.sendTestEvent.eventId}</Link>
        </div>
      )}
      {endpoint.ingressUrl === null ? <SystemSourceCard /> : <IngressCard endpoint={endpoint} ingressUrl={endpoint.ingressUrl} />}
      <HealthCard health={endpoint.health} />
      <h2>
        Recent events <LiveIndicator />
      </h2>
      <RecentEvents endpointId={endpoint.id} />
      {!endpoint.system && (
        <>
          <h2>Event types and schemas</h2>
          <EndpointSchemas endpointId={endpoint.id} />
        </>
      )}
      <h2>Linked destinations</h2>
      <EndpointLinks endpointId={endpoint.id} />
      <h2>Filters</h2>
      <EndpointFilters endpointId={endpoint.id} />
      <Can permission="write">
        {!endpoint.system && (
          <div className="grid2">
            <div>
              <h2>Settings</h2>
              <SettingsForm endpoint={endpoint} />
            </div>
            <div>
              <h2>Signing secret</h2>
              <RotateSecret endpointId={endpoint.id} />
            </div>
          </div>
        )}
      </Can>
    </Page>
  );
}

/** Where to send webhooks, how to sign them, and the endpoint's receiving settings. */
function IngressCard({ endpoint, ingressUrl }: { endpoint: EndpointDetail; ingressUrl: string }) {
  return (
    <div className="card">
      <div className="row">
        <strong>Ingress URL</strong>
        <code data-testid="ingress-url">{ingressUrl}</code>
        <CopyButton value={ingressUrl} />
      </div>
      <details data-testid="signing-hint">
        <summary>Send a signed request from a shell</summary>
        <p className="muted">Unsigned requests get 401. Paste the signing secret (shown once at creation or rotation) and run:</p>
        <JsonView value={signedCurl(ingressUrl, endpoint.provider)} label="Copy command" />
      </details>
      <KeyValues
        values={{
          slug: endpoint.slug,
          provider: endpoint.provider ? providerLabel(endpoint.provider) : 'generic (X-Hub-Signature-256)',
          'signing secret': endpoint.hasSigningSecret ? 'set (never shown again)' : 'none',
          ...(endpoint.previousSecretExpiresAt ? { 'previous secret valid until': new Date(endpoint.previousSecretExpiresAt).toLocaleString() } : {}),
          created: new Date(endpoint.createdAt).toLocaleString(),
        }}
      />
    </div>
  );
}

/** What the system source is, in place of an ingress URL and a secret it does not have. */
function SystemSourceCard() {
  return (
    <div className="card" data-testid="system-source">
      <p>
        <strong>The service&apos;s own events.</strong> Dead letters, circuits opening and closing, destinations paused and issues are emitted here as
        events (<code>relay.delivery.dead_lettered</code>, <code>relay.destination.circuit_opened</code>…). Link a chat channel or a webhook below to be
        told; filters, templates and transforms work as on any source. This source receives no HTTP requests.
      </p>
    </div>
  );
}

function RecentEvents({ endpointId }: { endpointId: string }) {
  const [{ data }, refetch] = useProjectQuery<{ events: { data: EventRow[] } }>(RECENT_EVENTS, { endpointId });
  const [live, setLive] = useState<EventRow[]>([]);
  useOnReconnect(() => refetch({ requestPolicy: 'network-only' }));
  useProjectSubscription<{ eventReceived: EventRow }>(EVENT_RECEIVED, { endpointId }, ({ eventReceived }) =>
    setLive((rows) => (rows.some((r) => r.id === eventReceived.id) ? rows : [eventReceived, ...rows].slice(0, 10))),
  );
  const fetched = data?.events.data ?? [];
  const seen = new Set(live.map((e) => e.id));
  const rows = [...live, ...fetched.filter((e) => !seen.has(e.id))].slice(0, 10);
  return (
    <Table
      label="Recent events"
      rows={rows}
      rowKey={(e) => e.id}
      rowHref={(e) => `/events/${e.id}`}
      rowClassName={(e) => (seen.has(e.id) ? 'fresh' : undefined)}
      empty={<p className="muted">No events yet. Press Test, or send a signed request (above).</p>}
      columns={[
        { header: 'Received', cell: (e) => <Time value={e.createdAt} /> },
        { header: 'Type', cell: (e) => e.eventType || '—', className: 'mono' },
        { header: 'Outcome', cell: (e) => <OutcomeBadge outcome={e.outcome} /> },
        { header: 'Response', cell: (e) => <ResponseFrom event={e} />, className: 'response' },
        { header: 'Event id', cell: (e) => <ShortId id={e.id} />, className: 'hide-narrow' },
      ]}
    />
  );
}

function SettingsForm({ endpoint }: { endpoint: EndpointDetail }) {
  const [name, setName] = useState(endpoint.name);
  const [slug, setSlug] = useState(endpoint.slug);
  const [eventTypePath, setEventTypePath] = useState(endpoint.eventTypePath ?? '');
  const [eventTypeHeader, setEventTypeHeader] = useState(endpoint.eventTypeHeader ?? '');
  const typingRules = useBuilder<TypingRule[]>(endpoint.typingRules as TypingRule[], fitsTypingRules, rulesProblem);
  const [saved, setSaved] = useState(false);
  const [state, update] = useProjectMutation(UPDATE);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const rules = typingRules.result();
    if (rules.error) return;
    const result = await update({
      id: endpoint.id,
      input: { name, slug, eventTypePath: eventTypePath || null, eventTypeHeader: eventTypeHeader || null, typingRules: rules.value ?? [] },
    });
    setSaved(!result.error);
  };
  const fields = ['name', 'slug', 'eventTypePath', 'eventTypeHeader', 'typingRules'];
  return (
    <form className="card form" onSubmit={submit} aria-label="Endpoint settings">
      <Field label="Name" field="name" error={state.error}>
        <input value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field label="Slug" field="slug" error={state.error} hint="Changing it changes the ingress URL.">
        <input value={slug} onChange={(e) => setSlug(e.target.value)} />
      </Field>
      <Field label="Event type path" field="eventTypePath" error={state.error} hint="A dot path in the JSON body, e.g. type.">
        <input value={eventTypePath} onChange={(e) => setEventTypePath(e.target.value)} />
      </Field>
      <Field label="Event type header" field="eventTypeHeader" error={state.error} hint="Used when the path gives nothing, e.g. X-Event-Type.">
        <input value={eventTypeHeader} onChange={(e) => setEventTypeHeader(e.target.value)} />
      </Field>
      <BuilderFrame label="Typing rules" builder={typingRules} hint="Up to 10, tried in order: the first whose conditions hold names the event type from its parts.">
        <RulesBuilder kind="typing" rules={typingRules.state.value} onChange={typingRules.setValue} />
      </BuilderFrame>
      <FieldError error={state.error} field="typingRules" />
      <ErrorMessage error={state.error} fields={fields} />
      <div className="row">
        <button type="submit" className="primary" disabled={state.fetching}>
          Save
        </button>
        {saved && <span className="muted">Saved.</span>}
      </div>
    </form>
  );
}

function RotateSecret({ endpointId }: { endpointId: string }) {
  const [overlap, setOverlap] = useState('86400');
  const [secret, setSecret] = useState<string>();
  const [state, rotate] = useProjectMutation<{ rotateEndpointSecret: { signingSecret: string | null } }>(ROTATE);
  const run = async (overlapSeconds: number) => {
    const result = await rotate({ id: endpointId, input: { overlapSeconds } });
    setSecret(result.data?.rotateEndpointSecret.signingSecret ?? undefined);
  };
  return (
    <div className="card form">
      {secret && <SecretOnce label="New signing secret" value={secret} onDone={() => setSecret(undefined)} />}
      <Field label="Overlap (seconds)" field="overlapSeconds" error={state.error} hint="The old secret keeps working this long (at most 604800).">
        <input type="number" min={0} max={604800} value={overlap} onChange={(e) => setOverlap(e.target.value)} />
      </Field>
      <ErrorMessage error={state.error} fields={['overlapSeconds']} />
      <div className="row">
        <ConfirmButton onConfirm={() => run(Number(overlap))} confirmText="Generate a new secret?">
          Rotate with overlap
        </ConfirmButton>
        <ConfirmButton danger onConfirm={() => run(0)} confirmText="The old secret stops at once: regenerate?">
          Regenerate now
        </ConfirmButton>
      </div>
    </div>
  );
}
