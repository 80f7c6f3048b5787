import fs from 'node:fs';
import { ApiClient, ApiError } from './api-client';
import { CliError, EXIT } from './cli-errors';
import { profileStore, resolveApiUrl } from './config-store';
import { parseHeader } from './listen-target';

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

interface DeliveryRow {
  id: string;
  destinationId: string;
  status: string;
  attemptCount: number;
}

/** Where a delivery stops changing (skipped: a CLI that was away or paused). */
const FINAL = new Set(['success', 'failed', 'canceled', 'skipped']);

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
 * Prints the event id; `--wait` then prints each delivery's outcome.
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
    if (err instanceof ApiError) throw new CliError(`trigger failed: ${err.message}`, err.code === 'not_found' ? EXIT.noSources : EXIT.failure);
    throw err;
  }
  process.stdout.write(`event ${eventId}${opts.event ? ` (again: ${opts.event})` : ''}\n`);
  if (opts.wait) await waitForDeliveries(client, eventId, opts.project, timeoutS * 1000);
}

async function waitForDeliveries(client: ApiClient, eventId: string, projectId: string | undefined, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let rows: DeliveryRow[] = [];
  for (;;) {
    ({
      deliveries: { data: rows },
    } = await client.request<{ deliveries: { data: DeliveryRow[] } }>(
      'query Deliveries($p: ID, $e: ID!) { deliveries(projectId: $p, eventId: $e, limit: 200) { data { id destinationId status attemptCount } } }',
      { p: projectId, e: eventId },
    ));
    if (rows.length > 0 && rows.every((d) => FINAL.has(d.status))) break;
    if (Date.now() > deadline) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  if (rows.length === 0) {
    process.stdout.write('no deliveries (filtered, or no destination linked to the source)\n');
    return;
  }
  const names = new Map<string, string>();
  for (const id of new Set(rows.map((d) => d.destinationId))) {
    const { destination } = await client.request<{ destination: { name: string } }>('query D($p: ID, $id: ID!) { destination(projectId: $p, id: $id) { name } }', { p: projectId, id });
    names.set(id, destination.name);
  }
  for (const d of rows) {
    process.stdout.write(`  ${d.status.padEnd(9)} ${names.get(d.destinationId)}  (${d.attemptCount} attempt${d.attemptCount === 1 ? '' : 's'}, delivery ${d.id})\n`);
  }
  const pending = rows.filter((d) => !FINAL.has(d.status));
  if (pending.length > 0) throw new CliError(`${pending.length} deliver${pending.length === 1 ? 'y is' : 'ies are'} still ${pending[0].status} after ${timeoutMs / 1000} s`);
  if (rows.some((d) => d.status === 'failed')) throw new CliError('a delivery failed');
}
