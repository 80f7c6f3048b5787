import { useState, type FormEvent } from 'react';
import { gql } from 'urql';
import { Link, useLocation } from 'wouter';
import { Can, CopyButton, EmptyState, ErrorMessage, Field, Page, Pager, SecretOnce, StatusBadge, Table, Time, useCursorPager, type Health, HEALTH_FIELDS, HealthBadge, p95, successRate } from '../components';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';
import type { Page as ListPage } from '../lib/types';
import { providerLabel } from '../lib/providers';

export const PROVIDERS = ['codehost_a', 'codehost_b', 'codehost_c', 'chat_a', 'tracker_a', 'tracker_b', 'payments_a'];

const ENDPOINTS = gql`
  query Endpoints($projectId: ID, $cursor: String) {
    endpoints(projectId: $projectId, cursor: $cursor, limit: 50) {
      data { id name slug ingressUrl system provider isActive createdAt ${HEALTH_FIELDS} }
      nextCursor
    }
  }
`;
const CREATE = gql`
  mutation CreateEndpoint($projectId: ID, $input: EndpointInput!) {
    createEndpoint(projectId: $projectId, input: $input) { id name slug ingressUrl signingSecret }
  }
`;

interface EndpointRow {
  id: string;
  name: string;
  slug: string;
  /** Null for the system source, which receives no requests. */
  ingressUrl: string | null;
  system: boolean;
  provider: string | null;
  isActive: boolean;
  createdAt: string;
  health: Health;
}

/** Endpoints (sources): list and create; the new signing secret is shown once. */
export function EndpointsPage() {
  const pager = useCursorPager();
  const [{ data, error, fetching }, refetch] = useProjectQuery<{ endpoints: ListPage<EndpointRow> }>(ENDPOINTS, { cursor: pager.cursor });
  const [, navigate] = useLocation();
  const [creating, setCreating] = useState(false);
  const [created, setCreated] = useState<{ id: string; name: string }>();
  const [secret, setSecret] = useState<string>();
  return (
    <Page
      title="Endpoints"
      actions={
        <Can permission="write">
          <button type="button" className="primary" onClick={() => setCreating((c) => !c)}>
            New endpoint
          </button>
        </Can>
      }
    >
      {created && (
        <div className="notice">
          Created {created.name}. <Link href={`/endpoints/${created.id}`}>Open {created.name} →</Link>
        </div>
      )}
      {secret && <SecretOnce label={`Signing secret of ${created?.name ?? 'the endpoint'}`} value={secret} onDone={() => setSecret(undefined)} />}
      {creating && (
        <CreateEndpointForm
          onCreated={(endpoint) => {
            setCreating(false);
            setCreated({ id: endpoint.id, name: endpoint.name });
            setSecret(endpoint.signingSecret);
            refetch({ requestPolicy: 'network-only' });
          }}
        />
      )}
      <ErrorMessage error={error} />
      {/* The system source (the service's own operational events) is always there: say what fills the list beside it. */}
      {data && !pager.cursor && data.endpoints.data.length > 0 && data.endpoints.data.every((e) => e.system) && <NoSourceYet />}
      <Table
        label="Endpoints"
        rows={data?.endpoints.data ?? []}
        rowKey={(e) => e.id}
        onRowClick={(e) => navigate(`/endpoints/${e.id}`)}
        empty={fetching ? <div className="loading">Loading…</div> : <NoSourceYet />}
        columns={[
          { header: 'Name', cell: (e) => <Link href={`/endpoints/${e.id}`}>{e.name}</Link> },
          { header: 'Provider', cell: (e) => (e.system ? 'system' : (e.provider ?? 'generic')) },
          {
            header: 'Ingress URL',
            className: 'mono',
            cell: (e) =>
              e.ingressUrl === null ? (
                <span className="muted">the service&apos;s operational events</span>
              ) : (
                <span className="row" onClick={(ev) => ev.stopPropagation()}>
                  {e.ingressUrl} <CopyButton value={e.ingressUrl} />
                </span>
              ),
          },
          { header: 'State', cell: (e) => <StatusBadge status={e.isActive ? 'active' : 'inactive'} /> },
          { header: 'Health', cell: (e) => <HealthBadge health={e.health} /> },
          { header: 'Success 24 h', cell: (e) => successRate(e.health), className: 'num' },
          { header: 'p95', cell: (e) => p95(e.health), className: 'num hide-narrow' },
          { header: 'Created', cell: (e) => <Time value={e.createdAt} />, className: 'hide-narrow' },
        ]}
      />
      <Pager pager={pager} nextCursor={data?.endpoints.nextCursor} />
    </Page>
  );
}

function NoSourceYet() {
  return (
    <EmptyState title="No endpoints of your own yet">
      An endpoint (a source) gives you an ingress URL to send webhooks to. Create one with <strong>New endpoint</strong>, or <Link href="/start">get started</Link>: a source, a destination, the link and a test event in one flow.
    </EmptyState>
  );
}

/** The form of New endpoint; `inline` (Get started, where the step has the title): no card, the button says "Create source". */
export function CreateEndpointForm({ onCreated, inline = false }: { onCreated: (e: { id: string; name: string; signingSecret: string }) => void; inline?: boolean }) {
  const [name, setName] = useState('');
  const [slug, setSlug] = useState('');
  const [provider, setProvider] = useState('');
  const [eventTypePath, setEventTypePath] = useState('');
  const [state, create] = useProjectMutation<{ createEndpoint: { id: string; name: string; signingSecret: string } }>(CREATE);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const input = { name, slug: slug || undefined, provider: provider || undefined, eventTypePath: eventTypePath || undefined };
    const result = await create({ input });
    if (result.data) onCreated(result.data.createEndpoint);
  };
  const fields = ['name', 'slug', 'provider', 'eventTypePath'];
  return (
    <form className={inline ? 'form' : 'card form'} onSubmit={submit} aria-label={inline ? 'New source' : 'New endpoint'}>
      {!inline && <h2>New endpoint</h2>}
      <Field label="Name" field="name" error={state.error}>
        <input name="name" required value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field label="Slug (optional)" field="slug" error={state.error} hint="Lowercase letters, digits and dashes; generated from the name when empty.">
        <input name="slug" value={slug} onChange={(e) => setSlug(e.target.value)} />
      </Field>
      <Field label="Provider" field="provider" error={state.error} hint="Decides which signature scheme ingress also accepts.">
        <select name="provider" value={provider} onChange={(e) => setProvider(e.target.value)}>
          <option value="">generic (X-Hub-Signature-256)</option>
          {PROVIDERS.map((p) => (
            <option key={p} value={p}>
              {providerLabel(p)}
            </option>
          ))}
        </select>
      </Field>
      <Field label="Event type path (optional)" field="eventTypePath" error={state.error} hint="A dot path in the JSON body, e.g. type or data.kind.">
        <input name="eventTypePath" value={eventTypePath} onChange={(e) => setEventTypePath(e.target.value)} />
      </Field>
      <ErrorMessage error={state.error} fields={fields} />
      <div className="row">
        <button type="submit" className="primary" disabled={state.fetching}>
          {inline ? 'Create source' : 'Create endpoint'}
        </button>
      </div>
    </form>
  );
}
