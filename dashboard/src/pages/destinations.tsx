import { useState, type FormEvent } from 'react';
import type { CombinedError } from '@urql/core';
import { gql, useQuery } from 'urql';
import { Link, useLocation, useParams } from 'wouter';
import { Can, ConfirmButton, countOf, EmptyState, workflowColumn, ErrorMessage, Field, type Health, HEALTH_FIELDS, HealthBadge, HealthCard, p95, Page, Pager, DeliveryBadge, SecretOnce, successRate, Table, Time, useCursorPager } from '../components';
import { useProjectMutation, useProjectQuery } from '../lib/hooks';
import { useCan } from '../lib/session';
import { BulkActionPanel } from './bulk-action';
import { DESTINATION_ISSUES_FIELDS, type DestinationIssues, DestinationIssuesLink } from './issues';

/** Destinations: list, create, edit, delete, and the webhook signing secret (rotate with overlap, cut over, clear). */

const TYPES = ['webhook', 'chat_a', 'chat_b', 'chat_c'] as const;
type DestinationKind = (typeof TYPES)[number] | 'cli';

interface Destination {
  id: string;
  name: string;
  type: DestinationKind;
  webhookHost: string | null;
  hasWebhookUrl: boolean;
  hasBotToken: boolean;
  hasSigningSecret: boolean;
  signatureScheme: SignatureScheme;
  previousSecretExpiresAt: string | null;
  guildId: string | null;
  channelId: string | null;
  retryPolicy: { maxAttempts: number; backoff: number[] };
  eventTypes: string[];
  isActive: boolean;
  createdAt: string;
  maxConcurrency: number | null;
  circuit: { state: string; consecutiveFailures: number; nextProbeAt: string | null; lastError: string | null };
  health: Health;
  linkedEndpoints?: { id: string; name: string }[];
}

/** A destination type as this server offers it (src/destinations/destination-platforms.ts). */
interface Platform {
  type: (typeof TYPES)[number];
  description: string;
  available: boolean;
  configured: boolean;
  setting: string | null;
  reason: string | null;
}

const PLATFORMS = gql`query DestinationPlatforms { destinationPlatforms { type description available configured setting reason } }`;

/** What each type sends and whether this server can send it: the forms disable what it cannot, saying why. */
function usePlatforms(): Platform[] {
  const [{ data }] = useQuery<{ destinationPlatforms: Platform[] }>({ query: PLATFORMS });
  return data?.destinationPlatforms ?? [];
}

type SignatureScheme = 'service' | 'standard';

/** How each signature scheme is named in the forms (docs/delivery.md "Signing"). */
const SCHEMES: Record<SignatureScheme, { option: string; short: string; check: string }> = {
  service: { option: 'Sign: X-Service-Signature (this service’s scheme)', short: 'yes', check: 'X-Service-Signature' },
  standard: {
    option: 'Sign: Standard Webhooks (webhook-signature; any Standard Webhooks library verifies it)',
    short: 'Standard Webhooks',
    check: 'webhook-signature (e.g. with a Standard Webhooks library)',
  },
};

const FIELDS = `id name type webhookHost hasWebhookUrl hasBotToken hasSigningSecret signatureScheme previousSecretExpiresAt guildId channelId
  retryPolicy { maxAttempts backoff } eventTypes isActive createdAt maxConcurrency
  circuit { state consecutiveFailures nextProbeAt lastError } ${HEALTH_FIELDS}`;

const LIST = gql`query Destinations($projectId: ID, $cursor: String) {
  destinations(projectId: $projectId, cursor: $cursor, limit: 50) { data { ${FIELDS} } nextCursor }
  openIssues: issues(projectId: $projectId, state: "open", limit: 200) { data { destination { id } } } }`;
const ONE = gql`query Destination($projectId: ID, $id: ID!) {
  destination(projectId: $projectId, id: $id) { ${FIELDS} linkedEndpoints { id name } }
  ${DESTINATION_ISSUES_FIELDS}
  deliveries(projectId: $projectId, destinationId: $id, limit: 10) { data { id eventId status deadLetteredAt attemptCount createdAt workflowUrl } } }`;
export const CREATE_DESTINATION = gql`mutation CreateDestination($projectId: ID, $input: DestinationInput!) {
  createDestination(projectId: $projectId, input: $input) { id name signingSecret signatureScheme } }`;
const UPDATE = gql`mutation UpdateDestination($projectId: ID, $id: ID!, $input: DestinationInput!) {
  updateDestination(projectId: $projectId, id: $id, input: $input) { ${FIELDS} signingSecret } }`;
const DELETE = gql`mutation DeleteDestination($projectId: ID, $id: ID!) { deleteDestination(projectId: $projectId, id: $id) }`;
const ROTATE = gql`mutation RotateDestinationSecret($projectId: ID, $id: ID!, $input: RotateDestinationSecretInput!) {
  rotateDestinationSecret(projectId: $projectId, id: $id, input: $input) { ${FIELDS} } }`;
const CLEAR = gql`mutation ClearDestinationSecret($projectId: ID, $id: ID!) {
  clearDestinationSecret(projectId: $projectId, id: $id) { ${FIELDS} } }`;

/** A rotation's new secret, made in the browser as the API makes one (`whsec_` + base64 of 32 random bytes): the API never returns a secret it was given. */
function generateSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

function target(d: Destination): string {
  if (d.webhookHost) return d.webhookHost;
  if (d.channelId) return `channel ${d.channelId}`;
  return d.type === 'cli' ? 'CLI session' : '—';
}

export function DestinationsPage() {
  const pager = useCursorPager();
  const [{ data, error, fetching }, refetch] = useProjectQuery<{
    destinations: { data: Destination[]; nextCursor: string | null };
    openIssues: { data: { destination: { id: string } }[] };
  }>(LIST, { cursor: pager.cursor });
  const [creating, setCreating] = useState(false);
  const [, navigate] = useLocation();
  const rows = data?.destinations.data ?? [];
  const openIssues = (id: string) => data?.openIssues.data.filter((i) => i.destination.id === id).length ?? 0;
  return (
    <Page
      title="Destinations"
      actions={
        <Can permission="write">
          <button type="button" className="primary" onClick={() => setCreating((c) => !c)}>
            {creating ? 'Close' : 'New destination'}
          </button>
        </Can>
      }
    >
      {creating && (
        <CreateDestination
          onCreated={() => refetch({ requestPolicy: 'network-only' })}
          onOpen={(id) => {
            setCreating(false);
            navigate(`/destinations/${id}`);
          }}
        />
      )}
      <ErrorMessage error={error} />
      <Table
        label="Destinations"
        rows={rows}
        rowKey={(d) => d.id}
        onRowClick={(d) => navigate(`/destinations/${d.id}`)}
        empty={
          fetching ? (
            <div className="loading">Loading…</div>
          ) : (
            !error && (
              <EmptyState title="No destinations yet">
                A destination is where events go: a webhook URL, a chat channel, or your computer through <code>relay listen</code>. Create one with <strong>New destination</strong>, then link it on an <Link href="/endpoints">endpoint</Link>’s page; or <Link href="/start">get started</Link> with a source, a destination, the link and a test event in one flow.
              </EmptyState>
            )
          )
        }
        columns={[
          { header: 'Name', cell: (d) => <Link href={`/destinations/${d.id}`}>{d.name}</Link> },
          { header: 'Type', cell: (d) => d.type },
          { header: 'Target', cell: (d) => <code>{target(d)}</code> },
          { header: 'Health', cell: (d) => <HealthBadge health={d.health} circuit={d.circuit} openIssues={openIssues(d.id)} /> },
          { header: 'Success 24 h', cell: (d) => successRate(d.health), className: 'num' },
          { header: 'p95', cell: (d) => p95(d.health), className: 'num hide-narrow' },
          { header: 'Signed', cell: (d) => (d.type === 'webhook' ? (d.hasSigningSecret ? SCHEMES[d.signatureScheme].short : 'no') : '—'), className: 'hide-narrow' },
          { header: 'Active', cell: (d) => (d.isActive ? 'yes' : <span className="muted">paused</span>) },
          { header: 'Created', cell: (d) => <Time value={d.createdAt} />, className: 'hide-narrow' },
        ]}
      />
      <Pager pager={pager} nextCursor={data?.destinations.nextCursor} />
    </Page>
  );
}

interface FormState {
  name: string;
  type: (typeof TYPES)[number];
  webhookUrl: string;
  botToken: string;
  channelId: string;
  guildId: string;
  eventTypes: string;
  maxAttempts: string;
  backoff: string;
  /** Blank: the service default (RELAY_DESTINATION_MAX_CONCURRENCY). */
  maxConcurrency: string;
  /** Webhook, create only: signed in a scheme (the API generates the secret) or not. */
  signing: SignatureScheme | 'none';
}

/** The form's text as the API's input; secrets only when typed (blank keeps the stored one). */
function toInput(f: FormState, creating: boolean): Record<string, unknown> {
  const input: Record<string, unknown> = { name: f.name };
  if (creating) input.type = f.type;
  if (f.webhookUrl) input.webhookUrl = f.webhookUrl;
  if (f.botToken) input.botToken = f.botToken;
  if (f.channelId || !creating) input.channelId = f.channelId || null;
  if (f.type === 'chat_b' && (f.guildId || !creating)) input.guildId = f.guildId || null;
  input.eventTypes = f.eventTypes.split(',').map((t) => t.trim()).filter(Boolean);
  if (f.maxAttempts || f.backoff) {
    input.retryPolicy = { maxAttempts: Number(f.maxAttempts), backoff: f.backoff.split(',').map((s) => Number(s.trim())).filter((n) => !Number.isNaN(n)) };
  }
  if (f.maxConcurrency || !creating) input.maxConcurrency = f.maxConcurrency ? Number(f.maxConcurrency) : null;
  // Signed by default: the API generates a secret unless told `signingSecret: null`.
  if (creating && f.type === 'webhook' && f.signing === 'none') input.signingSecret = null;
  if (creating && f.type === 'webhook' && f.signing === 'standard') input.signatureScheme = 'standard';
  return input;
}

function DestinationFields({ form, set, error, creating }: { form: FormState; set: (patch: Partial<FormState>) => void; error: CombinedError | undefined; creating: boolean }) {
  const chat = form.type !== 'webhook';
  const platforms = usePlatforms();
  const platform = platforms.find((p) => p.type === form.type);
  const unconfigured = platforms.filter((p) => !p.configured);
  const botTokenOff = !!platform && !platform.configured;
  return (
    <>
      <Field label="Name" field="name" error={error}>
        <input value={form.name} onChange={(e) => set({ name: e.target.value })} required />
      </Field>
      {creating && (
        <Field label="Type" field="type" error={error}>
          <select value={form.type} onChange={(e) => set({ type: e.target.value as FormState['type'] })}>
            {TYPES.map((t) => {
              const p = platforms.find((x) => x.type === t);
              return (
                <option key={t} value={t} disabled={p && !p.available}>
                  {p ? `${t} — ${p.description}${p.available ? '' : ` (needs ${p.setting})`}` : t}
                </option>
              );
            })}
          </select>
        </Field>
      )}
      {creating && unconfigured.length > 0 && (
        <p className="hint" data-testid="platforms-unconfigured">
          Not configured on this server: {unconfigured.map((p) => p.reason).join(' ')} The operator sets these.
        </p>
      )}
      {form.type !== 'chat_c' && (
        <Field label="Webhook URL" field="webhookUrl" error={error} hint={creating ? 'Stored encrypted; only its host is shown afterwards.' : 'Leave blank to keep the current URL.'}>
          <input type="url" value={form.webhookUrl} onChange={(e) => set({ webhookUrl: e.target.value })} placeholder="https://example.com/hooks/relay" />
        </Field>
      )}
      {creating && form.type === 'webhook' && (
        <Field label="Signing" field="signingSecret" error={error} hint="Receivers check the signature to know a delivery came from here and was not altered.">
          <select value={form.signing} onChange={(e) => set({ signing: e.target.value as FormState['signing'] })}>
            <option value="service">{SCHEMES.service.option}</option>
            <option value="standard">{SCHEMES.standard.option}</option>
            <option value="none">Do not sign</option>
          </select>
        </Field>
      )}
      {chat && (
        <Field
          label="Bot token"
          field="botToken"
          error={error}
          hint={botTokenOff ? platform.reason : creating ? 'Optional for chat_a/chat_b (then give a channel).' : 'Leave blank to keep the current token.'}
        >
          <input type="password" autoComplete="off" value={form.botToken} disabled={botTokenOff} onChange={(e) => set({ botToken: e.target.value })} />
        </Field>
      )}
      {chat && (
        <Field label="Channel id" field="channelId" error={error}>
          <input value={form.channelId} onChange={(e) => set({ channelId: e.target.value })} />
        </Field>
      )}
      {form.type === 'chat_b' && (
        <Field label="Guild id" field="guildId" error={error}>
          <input value={form.guildId} onChange={(e) => set({ guildId: e.target.value })} />
        </Field>
      )}
      <Field label="Event types" field="eventTypes" error={error} hint="Comma-separated; empty accepts every type.">
        <input value={form.eventTypes} onChange={(e) => set({ eventTypes: e.target.value })} placeholder="push, issues.opened" />
      </Field>
      <div className="grid2">
        <Field label="Max attempts" field="retryPolicy.maxAttempts" error={error}>
          <input type="number" min={1} max={20} value={form.maxAttempts} onChange={(e) => set({ maxAttempts: e.target.value })} placeholder="default" />
        </Field>
        <Field label="Backoff (seconds)" field="retryPolicy.backoff" error={error} hint="Comma-separated; the last repeats.">
          <input value={form.backoff} onChange={(e) => set({ backoff: e.target.value })} placeholder="10, 60, 300" />
        </Field>
      </div>
      <Field label="Max concurrency" field="maxConcurrency" error={error} hint="Requests in flight at once (1–1000; blank: the service default, 10). Above 1, events can arrive out of order; 1 keeps their order, with fewer deliveries per second.">
        <input type="number" min={1} max={1000} value={form.maxConcurrency} onChange={(e) => set({ maxConcurrency: e.target.value })} placeholder="default" />
      </Field>
    </>
  );
}

const BLANK: FormState = { name: '', type: 'webhook', webhookUrl: '', botToken: '', channelId: '', guildId: '', eventTypes: '', maxAttempts: '', backoff: '', maxConcurrency: '', signing: 'service' };

/** The form; a generated signing secret is shown once in its place, and "Done" opens the new destination. */
function CreateDestination({ onCreated, onOpen }: { onCreated: () => void; onOpen: (id: string) => void }) {
  const [form, setForm] = useState(BLANK);
  const [created, setCreated] = useState<{ id: string; name: string; signingSecret: string; signatureScheme: SignatureScheme }>();
  const [state, create] = useProjectMutation<{ createDestination: { id: string; name: string; signingSecret: string | null; signatureScheme: SignatureScheme } }>(CREATE_DESTINATION);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await create({ input: toInput(form, true) });
    const destination = result.data?.createDestination;
    if (!destination) return;
    onCreated();
    if (destination.signingSecret) setCreated({ ...destination, signingSecret: destination.signingSecret });
    else onOpen(destination.id);
  };
  if (created) {
    return (
      <section className="card" aria-label="New destination">
        <h2>Created {created.name}</h2>
        <p className="muted">Its deliveries are signed with this secret: give it to the receiver, which checks {SCHEMES[created.signatureScheme].check} with it.</p>
        <SecretOnce label={`Signing secret of ${created.name}`} value={created.signingSecret} onDone={() => onOpen(created.id)} />
      </section>
    );
  }
  return (
    <form className="form card" onSubmit={submit} aria-label="New destination">
      <h2>New destination</h2>
      <DestinationFields form={form} set={(p) => setForm((f) => ({ ...f, ...p }))} error={state.error} creating />
      <ErrorMessage error={state.error} fields={['name', 'type', 'webhookUrl', 'botToken', 'channelId', 'guildId', 'eventTypes', 'retryPolicy', 'signingSecret']} />
      <div className="row">
        <button type="submit" className="primary" disabled={state.fetching}>
          Create
        </button>
      </div>
    </form>
  );
}

export function DestinationPage() {
  const { id } = useParams<{ id: string }>();
  const [{ data, error }, refetch] = useProjectQuery<{ destination: Destination; deliveries: { data: RecentDelivery[] } } & DestinationIssues>(ONE, { id });
  // No normalized cache: a mutation's answer does not update this query, so re-read after each change.
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const [deleted, remove] = useProjectMutation(DELETE);
  const [, navigate] = useLocation();
  const canWrite = useCan('write');
  const [bulk, setBulk] = useState<'retry' | 'cancel' | null>(null);
  const d = data?.destination;
  if (!d) return <Page title="Destination">{error ? <ErrorMessage error={error} /> : <div className="loading">Loading…</div>}</Page>;
  return (
    <Page
      title={
        <>
          <Link href="/destinations">Destinations</Link> / {d.name}
        </>
      }
      actions={
        <Can permission="write">
          <button type="button" onClick={() => setBulk('retry')}>
            Retry failed…
          </button>
          <button type="button" onClick={() => setBulk('cancel')}>
            Cancel pending…
          </button>
          <ConfirmButton danger confirmText="Delete with its links and history?" onConfirm={async () => (await remove({ id })).data && navigate('/destinations')}>
            Delete
          </ConfirmButton>
        </Can>
      }
    >
      <ErrorMessage error={deleted.error} />
      {bulk && <BulkActionPanel key={bulk} kind={bulk} filter={bulk === 'retry' ? { destinationId: d.id, status: 'failed' } : { destinationId: d.id }} onClose={() => setBulk(null)} />}
      <div className="grid2">
        {canWrite ? <EditDestination destination={d} onSaved={reload} /> : <DestinationSummary destination={d} />}
        {d.type === 'webhook' && <SigningSecret destination={d} onChanged={reload} />}
        <HealthCard health={d.health} circuit={d.circuit} openIssues={data.openIssues.data.length} extra={d.type === 'cli' ? [] : [['issues', <DestinationIssuesLink key="issues" destinationId={d.id} issues={data} />]]} />
        <section className="card" aria-label="Linked endpoints">
          <h2>Linked endpoints</h2>
          {d.linkedEndpoints?.length ? (
            <ul>
              {d.linkedEndpoints.map((e) => (
                <li key={e.id}>
                  <Link href={`/endpoints/${e.id}`}>{e.name}</Link>
                </li>
              ))}
            </ul>
          ) : (
            <p className="muted">Not linked to any endpoint: link it on an endpoint's page.</p>
          )}
        </section>
      </div>
      <h2>Recent deliveries</h2>
      <Table
        label="Recent deliveries"
        rows={data?.deliveries.data ?? []}
        rowKey={(r) => r.id}
        empty={<p className="muted">No deliveries yet.</p>}
        columns={[
          { header: 'Created', cell: (r) => <Link href={`/events/${r.eventId}`}><Time value={r.createdAt} /></Link> },
          { header: 'Outcome', cell: (r) => <DeliveryBadge status={r.status} deadLettered={r.deadLetteredAt !== null} /> },
          { header: 'Attempts', cell: (r) => r.attemptCount, className: 'num' },
          { header: 'Event id', cell: (r) => r.eventId, className: 'mono hide-narrow' },
          ...workflowColumn(data?.deliveries.data ?? []),
        ]}
      />
    </Page>
  );
}

interface RecentDelivery {
  id: string;
  eventId: string;
  status: string;
  deadLetteredAt: string | null;
  attemptCount: number;
  createdAt: string;
  workflowUrl: string | null;
}

function DestinationSummary({ destination: d }: { destination: Destination }) {
  return (
    <div className="card">
      <h2>Settings</h2>
      <dl className="kv">
        <div><dt>type</dt><dd>{d.type}</dd></div>
        <div><dt>target</dt><dd>{target(d)}</dd></div>
        <div><dt>event types</dt><dd>{d.eventTypes.join(', ') || 'all'}</dd></div>
        <div><dt>retries</dt><dd>{countOf(d.retryPolicy.maxAttempts, 'attempt')}, backoff {d.retryPolicy.backoff.join(', ')} s</dd></div>
        <div><dt>active</dt><dd>{d.isActive ? 'yes' : 'paused'}</dd></div>
      </dl>
    </div>
  );
}

function EditDestination({ destination: d, onSaved }: { destination: Destination; onSaved: () => void }) {
  const [form, setForm] = useState<FormState>({
    ...BLANK,
    name: d.name,
    type: d.type === 'cli' ? 'webhook' : d.type,
    channelId: d.channelId ?? '',
    guildId: d.guildId ?? '',
    eventTypes: d.eventTypes.join(', '),
    maxAttempts: String(d.retryPolicy.maxAttempts),
    backoff: d.retryPolicy.backoff.join(', '),
    maxConcurrency: d.maxConcurrency == null ? '' : String(d.maxConcurrency),
  });
  const [state, update] = useProjectMutation(UPDATE);
  const [saved, setSaved] = useState(false);
  const platform = usePlatforms().find((p) => p.type === d.type);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setSaved(false);
    const result = await update({ id: d.id, input: toInput(form, false) });
    if (result.data) {
      setSaved(true);
      setForm((f) => ({ ...f, webhookUrl: '', botToken: '' }));
      onSaved();
    }
  };
  const toggle = async () => (await update({ id: d.id, input: { isActive: !d.isActive } })).data && onSaved();
  return (
    <form className="form card" onSubmit={submit} aria-label="Edit destination">
      <h2>Settings</h2>
      <div className="muted">
        {d.type} · {target(d)} {d.hasBotToken && '· bot token set'}
      </div>
      {d.isActive && d.hasBotToken && platform && !platform.configured && (
        <div className="error" role="alert">
          Cannot send: {platform.reason} Pause it{d.type === 'chat_c' ? '' : ', give it a webhook URL instead'}, or ask the operator to set {platform.setting}.
        </div>
      )}
      {d.type !== 'cli' && <DestinationFields form={form} set={(p) => setForm((f) => ({ ...f, ...p }))} error={state.error} creating={false} />}
      <ErrorMessage error={state.error} fields={['name', 'webhookUrl', 'botToken', 'channelId', 'guildId', 'eventTypes', 'retryPolicy']} />
      <div className="row">
        {d.type !== 'cli' && (
          <button type="submit" className="primary" disabled={state.fetching}>
            Save
          </button>
        )}
        <button type="button" onClick={toggle} disabled={state.fetching}>
          {d.isActive ? 'Pause' : 'Resume'}
        </button>
        {saved && <span className="muted">Saved.</span>}
      </div>
    </form>
  );
}

/** The scheme; rotate (new secret, previous one keeps signing during the overlap), cut over at once, or clear. */
function SigningSecret({ destination: d, onChanged }: { destination: Destination; onChanged: () => void }) {
  const [overlapHours, setOverlapHours] = useState('24');
  const [shown, setShown] = useState<string | null>(null);
  const [rotated, rotate] = useProjectMutation(ROTATE);
  const [cleared, clear] = useProjectMutation(CLEAR);
  const [switched, update] = useProjectMutation<{ updateDestination: { signingSecret: string | null } }>(UPDATE);
  // The API replaces a secret the new scheme cannot sign with, and shows the new one once.
  const changeScheme = async (signatureScheme: SignatureScheme) => {
    const result = await update({ id: d.id, input: { signatureScheme } });
    if (!result.data) return;
    setShown(result.data.updateDestination.signingSecret);
    onChanged();
  };
  const run = async (overlapSeconds: number) => {
    const secret = generateSecret();
    const result = await rotate({ id: d.id, input: { signingSecret: secret, overlapSeconds } });
    if (!result.data) return;
    setShown(secret);
    onChanged();
  };
  return (
    <div className="card" aria-label="Signing secret">
      <h2>Signing secret</h2>
      <p className="muted">
        {!d.hasSigningSecret
          ? 'Not signed: deliveries carry no signature headers.'
          : d.signatureScheme === 'standard'
            ? 'Deliveries are signed in the Standard Webhooks scheme (webhook-id, webhook-timestamp, webhook-signature).'
            : 'Deliveries are signed (X-Service-Timestamp, X-Service-Signature).'}
        {d.previousSecretExpiresAt && (
          <>
            {' '}
            The previous secret also signs until <Time value={d.previousSecretExpiresAt} />.
          </>
        )}
      </p>
      {shown && <SecretOnce label="New signing secret" value={shown} onDone={() => setShown(null)} />}
      <Can permission="write">
        <div className="form">
          <Field label="Signature scheme" field="signatureScheme" error={switched.error} hint="A change cuts over at once: the receiver switches its check at the same time.">
            <select value={d.signatureScheme} disabled={switched.fetching} onChange={(e) => changeScheme(e.target.value as SignatureScheme)}>
              <option value="service">X-Service-Signature (this service’s scheme)</option>
              <option value="standard">Standard Webhooks (webhook-signature)</option>
            </select>
          </Field>
          <Field label="Overlap (hours)" field="overlapSeconds" error={rotated.error} hint="During the overlap each delivery also carries a signature made with the old secret (at most 168 h).">
            <input type="number" min={0} max={168} value={overlapHours} onChange={(e) => setOverlapHours(e.target.value)} />
          </Field>
          <div className="row">
            <button type="button" className="primary" disabled={rotated.fetching} onClick={() => run(Math.round(Number(overlapHours) * 3600))}>
              {d.hasSigningSecret ? 'Rotate' : 'Generate'}
            </button>
            {d.hasSigningSecret && (
              <ConfirmButton confirmText="Old secret stops now: confirm" onConfirm={() => run(0)}>
                Regenerate now
              </ConfirmButton>
            )}
            {d.hasSigningSecret && (
              <ConfirmButton danger confirmText="Stop signing: confirm" onConfirm={async () => (await clear({ id: d.id })).data && onChanged()}>
                Clear
              </ConfirmButton>
            )}
          </div>
          <ErrorMessage error={rotated.error ?? cleared.error ?? switched.error} fields={['overlapSeconds', 'signatureScheme']} />
        </div>
      </Can>
    </div>
  );
}
