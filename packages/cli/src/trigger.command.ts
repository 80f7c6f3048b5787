import fs from 'node:fs';
import { deliveryOutcome, type DeliveryStatusName, type Outcome, OUTCOME_WORDS, outcomeLabel } from './shared/outcomes';
import { ApiClient, ApiError } from './api-client';
import { CliError, EXIT } from './cli-errors';
import { profileStore, resolveApiUrl } from './config-store';
import { parseHeader } from './listen-target';
import { missingSourceSlug, unknownSource } from './unknown-source';

export interface TriggerOptions {
  /** A file with the JSON body, or `-` for stdin. */
  payload?: string;
  type?: string;
  /** Repeatable `--header 'K: V'`. */
  header?: string[];
  /** Send this stored event again. */
  event?: string;
  wait?: boolean;
  /** Seconds --wait waits at most. */
  timeout?: string;
  project?: string;
  apiUrl?: string;
  profile?: string;
}

interface WaitedEvent {
  outcome: Outcome;
  deliveries: Array<{ id: string; destinationId: string; status: DeliveryStatusName; deadLetteredAt: string | null; attemptCount: number; destination: { name: string } | null }>;
}

/** Outcomes that can still change without anyone acting. */
const MOVING = new Set<Outcome>(['pending', 'retrying']);
const FAILURES = new Set<Outcome>(['failed', 'dead_lettered']);

function readPayload(file: string): string {
  try {
    return file === '-' ? fs.readFileSync(0, 'utf8') : fs.readFileSync(file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read the payload ${file === '-' ? 'from stdin' : `"${file}"`}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`, EXIT.usage);
  }
}

/**
 * `relay trigger <source>`: an event through the source's real ingress
 * (filters, transforms and a running `listen` all apply), signed with the
 * source's secret by the API; `--event <id>` sends a stored event again.
 * Prints the event id; `--wait` then prints each delivery's outcome in the
 * outcome words of the dashboard (packages/cli/src/shared/outcomes.ts).
 */
export async function trigger(source: string | undefined, opts: TriggerOptions): Promise<void> {
  if (!source && !opts.event) throw new CliError('trigger needs a source (relay trigger shop) or --event <event_id>', EXIT.usage);
  const body = opts.payload === undefined ? undefined : readPayload(opts.payload);
  if (body !== undefined) {
    try {
      JSON.parse(body);
    } catch (err) {
      throw new CliError(`the payload is not JSON: ${(err as Error).message}`, EXIT.usage);
    }
  }
  const timeoutS = opts.timeout === undefined ? 30 : Number(opts.timeout);
  if (!Number.isInteger(timeoutS) || timeoutS < 1 || timeoutS > 3600) throw new CliError(`invalid --timeout "${opts.timeout}": give whole seconds from 1 to 3600`, EXIT.usage);
  const store = profileStore(opts);
  const client = new ApiClient(resolveApiUrl(opts.apiUrl, store.read()), store);
  const input = { source: source ?? null, body: body ?? null, eventType: opts.type ?? null, headers: Object.fromEntries((opts.header ?? []).map(parseHeader)), eventId: opts.event ?? null };
  let eventId: string;
  try {
    ({
      triggerEvent: { eventId },
    } = await client.request<{ triggerEvent: { eventId: string } }>('mutation Trigger($p: ID, $i: TriggerEventInput!) { triggerEvent(projectId: $p, input: $i) { eventId } }', {
      p: opts.project,
      i: input,
    }));
  } catch (err) {
    if (source && missingSourceSlug(err) === source) throw await unknownSource(client, opts.project, source);
    if (err instanceof ApiError) throw new CliError(`trigger failed: ${err.message}`, err.code === 'not_found' ? EXIT.noSources : EXIT.failure);
    throw err;
  }
  process.stdout.write(`event ${eventId}${opts.event ? ` (again: ${opts.event})` : ''}\n`);
  if (opts.wait) await waitForDeliveries(client, eventId, opts.project, timeoutS * 1000);
}

/** Polls the event until its outcome stops moving (or the timeout), then prints each current delivery in the outcome words. */
async function waitForDeliveries(client: ApiClient, eventId: string, projectId: string | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let event: WaitedEvent;
  for (;;) {
    ({ event } = await client.request<{ event: WaitedEvent }>(
      'query Event($p: ID, $e: ID!) { event(projectId: $p, id: $e) { outcome deliveries { id destinationId status deadLetteredAt attemptCount destination { name } } } }',
      { p: projectId, e: eventId },
    ));
    if (!MOVING.has(event.outcome) || Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  // A replay takes over from what it replays: the newest delivery per destination (ids are time-ordered).
  const current = event.deliveries.filter((d) => !event.deliveries.some((r) => r.id > d.id && r.destinationId === d.destinationId));
  const said = `${outcomeLabel(event.outcome)}: ${OUTCOME_WORDS[event.outcome].meaning}`;
  if (current.length === 0) process.stdout.write(`  ${said}\n`);
  for (const d of current) {
    const outcome = outcomeLabel(deliveryOutcome(d.status, d.deadLetteredAt !== null));
    process.stdout.write(`  ${outcome.padEnd(13)} ${d.destination?.name ?? '(deleted destination)'}  (${d.attemptCount} attempt${d.attemptCount === 1 ? '' : 's'}, delivery ${d.id})\n`);
  }
  if (MOVING.has(event.outcome)) throw new CliError(`still ${said} (after ${timeoutMs / 1000} s)`);
  if (FAILURES.has(event.outcome)) throw new CliError(said);
}
