import { useEffect, useState, type FormEvent, type ReactNode } from 'react';
import { gql, useClient } from 'urql';
import { Link } from 'wouter';
import { CopyButton, ErrorMessage, Field, OutcomeBadge, Page, ResponseFrom, SecretOnce } from '../components';
import { useProjectMutation, useProjectQuery, useProjectSubscription } from '../lib/hooks';
import { useCan, useWorkspace } from '../lib/session';
import { EVENT_OUTCOME_FIELDS, type EventOutcomeFields } from '../lib/types';
import { useUrlState } from '../lib/url-state';
import { CREATE_DESTINATION } from './destinations';
import { CreateEndpointForm } from './endpoints';

/**
 * Get started: one flow from an empty project to a delivered event: a source, a
 * destination (a webhook URL, or `relay listen` on this computer), the link between
 * them, and a Test event whose outcome shows as it lands. The choices live in the URL
 * (`?source=…&destination=…&event=…`), so a reload continues where it was, and in this
 * browser's storage per project, so a return through the navigation does too. A source or a
 * destination is chosen as soon as it is created: a reload while its secret is shown goes on
 * at the next step (the secret is shown once).
 */

const KEYS = ['source', 'destination', 'via', 'event'] as const;

const STATE = gql`
  query FirstRun($projectId: ID) {
    endpoints(projectId: $projectId, limit: 200) { data { id name slug ingressUrl system isActive } }
    destinations(projectId: $projectId, limit: 200) { data { id name type webhookHost } }
  }
`;
const LINKS = gql`
  query FirstRunLinks($projectId: ID, $endpointId: ID!) { links(projectId: $projectId, endpointId: $endpointId, limit: 200) { data { destinationId } } }
`;
const LISTEN_LINKS = gql`
  query FirstRunListen($projectId: ID, $endpointId: ID!) {
    links(projectId: $projectId, endpointId: $endpointId, limit: 200) { data { destinationId } }
    destinations(projectId: $projectId, limit: 200) { data { id name type webhookHost health { cliOnline } } }
  }
`;
const CREATE_LINK = gql`
  mutation FirstRunLink($projectId: ID, $endpointId: ID!, $input: LinkInput!) { createLink(projectId: $projectId, endpointId: $endpointId, input: $input) { id } }
`;
const SEND_TEST = gql`
  mutation FirstRunTest($projectId: ID, $endpointId: ID!) { sendTestEvent(projectId: $projectId, endpointId: $endpointId) { eventId } }
`;
const ATTEMPT_CHANGED = gql`
  subscription FirstRunAttempt($projectId: ID) { deliveryAttemptUpdated(projectId: $projectId) { id eventId } }
`;
const EVENT_OUTCOME = gql`
  query FirstRunOutcome($projectId: ID, $id: ID!) { event(projectId: $projectId, id: $id) { id ${EVENT_OUTCOME_FIELDS} } }
`;

interface Source {
  id: string;
  name: string;
  slug: string;
  ingressUrl: string | null;
  system: boolean;
  isActive: boolean;
}
interface DestinationRef {
  id: string;
  name: string;
  type: string;
  webhookHost: string | null;
}

/** Where this browser keeps a project's choices, for a return to /start without them in the URL. */
const storageKey = (projectId: string) => `relay.firstRun.${projectId}`;

/** The URL's choices, kept in storage too; a visit without any in the URL takes the stored ones. */
function useChoices(projectId: string) {
  const [choice, setUrl] = useUrlState(KEYS);
  const inUrl = KEYS.some((k) => choice[k]);
  useEffect(() => {
    if (inUrl) return;
    try {
      const stored = JSON.parse(localStorage.getItem(storageKey(projectId)) ?? 'null') as Partial<Record<(typeof KEYS)[number], string>> | null;
      if (stored) setUrl(stored);
    } catch {
      // Unreadable: start afresh.
    }
  }, [projectId]); // on arrival, and when the project changes
  useEffect(() => {
    if (inUrl) localStorage.setItem(storageKey(projectId), JSON.stringify(choice));
  }, [projectId, choice, inUrl]);
  const startOver = () => {
    localStorage.removeItem(storageKey(projectId));
    setUrl(Object.fromEntries(KEYS.map((k) => [k, ''])));
  };
  return [choice, setUrl, inUrl ? startOver : undefined] as const;
}

/** A secret shown once, right after its source or destination was created (and chosen). */
interface ShownSecret {
  kind: 'source' | 'destination';
  name: string;
  signingSecret: string;
}

export function FirstRunPage() {
  const { project } = useWorkspace();
  const [choice, setChoice, startOver] = useChoices(project.id);
  const [secret, setSecret] = useState<ShownSecret>();
  const canWrite = useCan('write');
  const [{ data }, refetch] = useProjectQuery<{ endpoints: { data: Source[] }; destinations: { data: DestinationRef[] } }>(STATE);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const sources = data?.endpoints.data.filter((e) => !e.system) ?? [];
  const source = sources.find((s) => s.id === choice.source);
  const destination = data?.destinations.data.find((d) => d.id === choice.destination);
  const [{ data: links }, refetchLinks] = useProjectQuery<{ links: { data: { destinationId: string }[] } }>(LINKS, { endpointId: choice.source }, { pause: !choice.source });
  const linked = !!destination && !!links?.links.data.some((l) => l.destinationId === destination.id);
  // A secret still on screen keeps its step current: the next one waits until it is copied.
  const step = !source || secret?.kind === 'source' ? 1 : !destination || secret?.kind === 'destination' ? 2 : !linked ? 3 : 4;

  return (
    <Page title="Get started">
      <p className="lead">
        Four steps from an empty project to your first delivered webhook: a <strong>source</strong> receives webhooks at its own URL, a{' '}
        <strong>destination</strong> is where they go, a <strong>link</strong> connects the two, and <strong>Test</strong> sends a signed sample
        through the real ingress.
      </p>
      {startOver && canWrite && (
        <p>
          <button type="button" className="small" onClick={() => { setSecret(undefined); startOver(); }}>
            Start over
          </button>{' '}
          <span className="muted">with another source or destination (what you made stays).</span>
        </p>
      )}
      {!canWrite && <div className="notice">You are a viewer of this project: a developer or an admin can set it up.</div>}
      <ol className="steps">
        <Step n={1} title="Create a source" state={step > 1 ? 'done' : 'current'}>
          {secret?.kind === 'source' ? (
            <CreatedSecret secret={secret} onDone={() => setSecret(undefined)}>
              Senders sign their requests with this secret (HMAC-SHA256 of the body, in X-Hub-Signature-256); the Test button signs with it for you.
            </CreatedSecret>
          ) : source ? (
            <SourceDone source={source} />
          ) : (
            canWrite && (
              <PickSource
                sources={sources}
                onPicked={(id) => setChoice({ source: id })}
                onCreated={(created) => {
                  setSecret({ kind: 'source', ...created });
                  setChoice({ source: created.id });
                  reload();
                }}
              />
            )
          )}
        </Step>
        <Step n={2} title="Create a destination" state={step > 2 ? 'done' : step === 2 ? 'current' : 'todo'}>
          {secret?.kind === 'destination' ? (
            <CreatedSecret secret={secret} onDone={() => setSecret(undefined)}>
              Deliveries to {secret.name} are signed with this secret (X-Service-Signature): your receiver checks it to know they came from here.
            </CreatedSecret>
          ) : destination ? (
            <p>
              <Link href={`/destinations/${destination.id}`}>{destination.name}</Link>{' '}
              <span className="muted">{destination.type === 'cli' ? 'relay listen on your computer' : (destination.webhookHost ?? destination.type)}</span>
            </p>
          ) : (
            step === 2 &&
            canWrite &&
            source && (
              <PickDestination
                source={source}
                via={choice.via === 'listen' ? 'listen' : 'webhook'}
                onVia={(via) => setChoice({ via: via === 'webhook' ? '' : via })}
                destinations={data?.destinations.data ?? []}
                onPicked={(id, created) => {
                  if (created) setSecret({ kind: 'destination', ...created });
                  setChoice({ destination: id });
                  reload();
                  refetchLinks({ requestPolicy: 'network-only' });
                }}
              />
            )
          )}
        </Step>
        <Step n={3} title="Link them" state={step > 3 ? 'done' : step === 3 ? 'current' : 'todo'}>
          {linked && source && destination ? (
            <p>
              Events that reach <strong>{source.name}</strong> go to <strong>{destination.name}</strong>.
            </p>
          ) : (
            step === 3 && canWrite && source && destination && <LinkButton source={source} destination={destination} onLinked={() => refetchLinks({ requestPolicy: 'network-only' })} />
          )}
        </Step>
        <Step n={4} title="Send a test event" state={choice.event ? 'done' : step === 4 ? 'current' : 'todo'}>
          {step === 4 && source && destination && (
            <TestStep source={source} destination={destination} eventId={choice.event} onSent={(event) => setChoice({ event })} canWrite={canWrite} />
          )}
        </Step>
      </ol>
    </Page>
  );
}

function Step({ n, title, state, children }: { n: number; title: string; state: 'done' | 'current' | 'todo'; children: ReactNode }) {
  return (
    <li className={`step ${state}`} data-testid={`step-${n}`} data-state={state} aria-current={state === 'current' ? 'step' : undefined}>
      <h2>
        <span className="step-n" aria-hidden="true">
          {state === 'done' ? '✓' : n}
        </span>{' '}
        {title}
      </h2>
      {children}
    </li>
  );
}

function SourceDone({ source }: { source: Source }) {
  return (
    <div>
      <p>
        <Link href={`/endpoints/${source.id}`}>{source.name}</Link> receives webhooks at:
      </p>
      {source.ingressUrl && (
        <p className="row mono">
          {source.ingressUrl} <CopyButton value={source.ingressUrl} />
        </p>
      )}
    </div>
  );
}

function CreatedSecret({ secret, onDone, children }: { secret: ShownSecret; onDone: () => void; children: ReactNode }) {
  return (
    <div>
      <p className="muted">{children}</p>
      <SecretOnce label={`Signing secret of ${secret.name}`} value={secret.signingSecret} onDone={onDone} />
    </div>
  );
}

/** A new source (chosen at once; its signing secret shown once above), or one the project has. */
function PickSource(props: { sources: Source[]; onPicked: (id: string) => void; onCreated: (created: { id: string; name: string; signingSecret: string }) => void }) {
  const { sources, onPicked } = props;
  return (
    <div>
      <CreateEndpointForm inline onCreated={props.onCreated} />
      {sources.length > 0 && <ExistingPicker label="Or use a source you have" options={sources} onPicked={onPicked} />}
    </div>
  );
}

function ExistingPicker({ label, options, onPicked }: { label: string; options: { id: string; name: string }[]; onPicked: (id: string) => void }) {
  return (
    <label className="field existing">
      <span className="field-label">{label}</span>
      <select value="" onChange={(e) => e.target.value && onPicked(e.target.value)}>
        <option value="">Choose…</option>
        {options.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
    </label>
  );
}

function PickDestination(props: {
  source: Source;
  via: 'webhook' | 'listen';
  onVia: (via: 'webhook' | 'listen') => void;
  destinations: DestinationRef[];
  /** With `created`, a destination made here whose signing secret is to be shown once. */
  onPicked: (id: string, created?: { name: string; signingSecret: string }) => void;
}) {
  const existing = props.destinations.filter((d) => d.type !== 'cli');
  return (
    <div>
      <div className="segmented" role="group" aria-label="Destination kind">
        <button type="button" aria-pressed={props.via === 'webhook'} onClick={() => props.onVia('webhook')}>
          A webhook URL
        </button>
        <button type="button" aria-pressed={props.via === 'listen'} onClick={() => props.onVia('listen')}>
          relay listen on this computer
        </button>
      </div>
      {props.via === 'webhook' ? (
        <>
          <WebhookForm onCreated={props.onPicked} />
          {existing.length > 0 && <ExistingPicker label="Or use a destination you have" options={existing} onPicked={props.onPicked} />}
          <p className="hint">
            Chat channels and delivery settings (retries, event types, concurrency): <Link href="/destinations">Destinations</Link>.
          </p>
        </>
      ) : (
        <ListenInstructions source={props.source} onConnected={props.onPicked} />
      )}
    </div>
  );
}

/** The natural first destination: a URL, signed by default (the API generates the secret, shown once by the step). */
function WebhookForm({ onCreated }: { onCreated: (id: string, created?: { name: string; signingSecret: string }) => void }) {
  const [name, setName] = useState('');
  const [url, setUrl] = useState('');
  const [state, create] = useProjectMutation<{ createDestination: { id: string; name: string; signingSecret: string | null } }>(CREATE_DESTINATION);
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const result = await create({ input: { name, type: 'webhook', webhookUrl: url } });
    const destination = result.data?.createDestination;
    if (!destination) return;
    onCreated(destination.id, destination.signingSecret ? { name: destination.name, signingSecret: destination.signingSecret } : undefined);
  };
  return (
    <form className="form" onSubmit={submit} aria-label="New webhook destination">
      <Field label="Name" field="name" error={state.error}>
        <input value={name} onChange={(e) => setName(e.target.value)} required placeholder="My receiver" />
      </Field>
      <Field label="Webhook URL" field="webhookUrl" error={state.error} hint="Where each event is POSTed as JSON; a 2xx answer means delivered.">
        <input type="url" value={url} onChange={(e) => setUrl(e.target.value)} required placeholder="https://example.com/webhooks" />
      </Field>
      <ErrorMessage error={state.error} fields={['name', 'webhookUrl']} />
      <div className="row">
        <button type="submit" className="primary" disabled={state.fetching}>
          Create destination
        </button>
      </div>
    </form>
  );
}

/**
 * `relay listen` makes its own `cli` destination and links it to the source when it
 * starts: this step waits (reading every 2 s) for a linked one whose CLI is online.
 */
function ListenInstructions({ source, onConnected }: { source: Source; onConnected: (id: string) => void }) {
  const [{ data }, refetch] = useProjectQuery<{ links: { data: { destinationId: string }[] }; destinations: { data: (DestinationRef & { health: { cliOnline: boolean | null } })[] } }>(
    LISTEN_LINKS,
    { endpointId: source.id },
  );
  useEffect(() => {
    const timer = setInterval(() => refetch({ requestPolicy: 'network-only' }), 2000);
    return () => clearInterval(timer);
  }, [refetch]);
  const cli = data?.destinations.data.find((d) => d.type === 'cli' && d.health.cliOnline && data.links.data.some((l) => l.destinationId === d.id));
  useEffect(() => {
    if (cli) onConnected(cli.id);
  }, [cli?.id]); // once it appears
  const commands = `npx relay login --api-url ${window.location.origin}\nnpx relay listen 4000 ${source.slug}`;
  return (
    <div>
      <p>
        Events go to a server on your computer (here port 4000) while <code>relay listen</code> runs. In a terminal, in the relay checkout (or with{' '}
        <code>relay</code> where the CLI package is installed):
      </p>
      <div className="json">
        <div className="json-tools">
          <CopyButton value={commands} label="Copy commands" />
        </div>
        <pre>{commands}</pre>
      </div>
      <p className="muted" data-testid="listen-waiting">
        Waiting for relay listen to connect…
      </p>
    </div>
  );
}

function LinkButton({ source, destination, onLinked }: { source: Source; destination: DestinationRef; onLinked: () => void }) {
  const [state, link] = useProjectMutation(CREATE_LINK);
  return (
    <div className="row">
      <button
        type="button"
        className="primary"
        disabled={state.fetching}
        onClick={async () => {
          const result = await link({ endpointId: source.id, input: { destinationId: destination.id } });
          if (!result.error) onLinked();
        }}
      >
        Link {source.name} → {destination.name}
      </button>
      <ErrorMessage error={state.error} />
    </div>
  );
}

/**
 * Test: a signed sample through the real ingress (sendTestEvent), then its outcome as it
 * lands: every attempt recorded in the project arrives on `deliveryAttemptUpdated` (the
 * subscription the Events page uses); one of this event re-reads its outcome.
 */
function TestStep(props: { source: Source; destination: DestinationRef; eventId: string; onSent: (eventId: string) => void; canWrite: boolean }) {
  const { eventId } = props;
  const client = useClient();
  const { project } = useWorkspace();
  const [sent, send] = useProjectMutation<{ sendTestEvent: { eventId: string } }>(SEND_TEST);
  const [outcome, setOutcome] = useState<EventOutcomeFields>();
  const read = (id: string) =>
    void client
      .query<{ event: EventOutcomeFields }>(EVENT_OUTCOME, { projectId: project.id, id }, { requestPolicy: 'network-only' })
      .toPromise()
      .then(({ data }) => data && setOutcome(data.event));
  useProjectSubscription<{ deliveryAttemptUpdated: { eventId: string } }>(ATTEMPT_CHANGED, {}, ({ deliveryAttemptUpdated }) => {
    if (deliveryAttemptUpdated.eventId === eventId) read(eventId);
  });
  // The event as it stands when the step opens (a reload, a return); an attempt recorded before the subscription was live shows here too.
  useEffect(() => {
    setOutcome(undefined);
    if (eventId) read(eventId);
  }, [eventId]);
  const delivered = outcome?.outcome === 'delivered';
  return (
    <div>
      {props.canWrite && (
        <div className="row">
          <button
            type="button"
            className={delivered ? undefined : 'primary'}
            disabled={sent.fetching || !props.source.isActive}
            onClick={async () => {
              const result = await send({ endpointId: props.source.id });
              if (result.data) props.onSent(result.data.sendTestEvent.eventId);
            }}
          >
            {eventId ? 'Send another test event' : 'Send a test event'}
          </button>
          <span className="muted">
            through {props.source.name} to {props.destination.name}
          </span>
        </div>
      )}
      <ErrorMessage error={sent.error} />
      {eventId && (
        <div className={`card test-outcome ${delivered ? 'delivered' : ''}`} data-testid="test-outcome" aria-live="polite">
          <p className="row">
            {outcome ? (
              <>
                <OutcomeBadge outcome={outcome.outcome} /> <ResponseFrom event={outcome} />
              </>
            ) : (
              <span className="muted">Sent: waiting for the delivery…</span>
            )}
          </p>
          <p>{delivered ? <strong>Your first event is delivered.</strong> : outcomeHint(outcome)}</p>
          <p className="row">
            <Link href={`/events/${eventId}`}>Open the event</Link>
            <span className="muted">·</span>
            <Link href="/events">All events</Link>
            <span className="muted">·</span>
            <Link href={`/endpoints/${props.source.id}`}>Send your own signed request (curl) from {props.source.name}’s page</Link>
          </p>
        </div>
      )}
    </div>
  );
}

function outcomeHint(outcome: EventOutcomeFields | undefined): string {
  switch (outcome?.outcome) {
    case undefined:
    case 'pending':
      return 'On its way: the outcome shows here as soon as the destination answers.';
    case 'retrying':
      return 'The destination did not answer 2xx: the relay retries. Check that the receiver runs and answers 2xx; the event page shows each attempt.';
    case 'skipped':
      return 'relay listen was not connected (or paused) when the event came: start it, then send another test event.';
    case 'dead_lettered':
    case 'failed':
      return 'Every attempt failed: the event page shows each answer, and Replay from DLQ sends it again once the receiver works.';
    default:
      return 'The event page shows what happened.';
  }
}
