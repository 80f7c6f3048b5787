import os from 'node:os';
import { closeHttpAgents } from '../sending/http-client';
import { ApiClient, ApiError } from './api-client';
import { CliError, EXIT, noSources } from './cli-errors';
import { ConfigStore, resolveApiUrl } from './config-store';
import { ListenKeys } from './listen-keys';
import { KEY_HELP, ListenScreen, type OutputMode } from './listen-screen';
import { CLI_FORWARD_FIELDS, type CliForward, type ForwardResult, forwardLocally, localUrl, parseDelayMs, parseForwardPath, parsePort, skippedResult } from './local-forwarder';
import { Tunnel } from './tunnel';

export interface ListenOptions {
  path?: string;
  project?: string;
  apiUrl?: string;
  transform?: string;
  template?: string;
  delay?: string;
  /** commander allows only `json`. */
  output?: OutputMode;
  /** Seconds without a connection after which `listen` exits (code 4); default: reconnect forever. */
  exitAfterDisconnect?: string;
}

/** The session as `startCliSession` / `updateCliSession` answer it. */
export interface CliSession {
  destination: { id: string; name: string };
  sources: Array<{ slug: string; ingressUrl: string }>;
  transformName: string | null;
  templateName: string | null;
  delayMs: number;
}
const SESSION_FIELDS = 'destination { id name } sources { slug ingressUrl } transformName templateName delayMs';

export interface SessionChange {
  sourceSlugs?: string[];
  transformName?: string | null;
  templateName?: string | null;
  delayMs?: number;
}

/** `relay listen <port> [source_slug]`: forwards the project's live events to a local server until `q` / Ctrl+C. */
export async function listen(portArg: string, sourceSlug: string | undefined, opts: ListenOptions, store = new ConfigStore()): Promise<void> {
  const target = { port: parsePort(portArg), path: parseForwardPath(opts.path ?? '/') };
  const delayMs = opts.delay === undefined ? undefined : parseDelayMs(opts.delay);
  const exitAfterDisconnectMs = opts.exitAfterDisconnect === undefined ? undefined : parseSeconds(opts.exitAfterDisconnect, '--exit-after-disconnect') * 1000;
  const client = new ApiClient(resolveApiUrl(opts.apiUrl, store.read()), store);
  const screen = new ListenScreen(opts.output ?? 'pretty');
  const listener = new Listener(client, screen, target, opts.project, exitAfterDisconnectMs);
  await listener.start({ sourceSlugs: sourceSlug ? [sourceSlug] : undefined, transformName: opts.transform, templateName: opts.template, delayMs });
  await listener.finished;
}

/** A whole number of seconds, 1 to 86400 (a day). */
export function parseSeconds(value: string, option: string): number {
  const seconds = /^\d+$/.test(value.trim()) ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > 86_400) throw new CliError(`invalid ${option} "${value}": give whole seconds from 1 to 86400`, EXIT.usage);
  return seconds;
}

/** One running `listen`: the session, the tunnel, the keys, and what was forwarded last. */
export class Listener {
  paused = false;
  private session!: CliSession;
  private lastEventId?: string;
  private readonly replays = new Set<string>();
  private tunnel?: Tunnel;
  private keys?: ListenKeys;
  private done!: { resolve: () => void; reject: (err: unknown) => void };
  readonly finished = new Promise<void>((resolve, reject) => (this.done = { resolve, reject }));

  constructor(
    private readonly client: ApiClient,
    private readonly screen: ListenScreen,
    private readonly target: { port: number; path: string },
    private readonly projectId?: string,
    private readonly exitAfterDisconnectMs?: number,
  ) {}

  async start(input: SessionChange): Promise<void> {
    this.session = await this.call<{ startCliSession: CliSession }>(
      `mutation Start($p: ID, $i: StartCliSessionInput!) { startCliSession(projectId: $p, input: $i) { ${SESSION_FIELDS} } }`,
      { p: this.projectId, i: { machine: os.hostname(), ...input } },
    ).then((r) => r.startCliSession);
    this.tunnel = new Tunnel(this.client, {
      query: `subscription Forwards($p: ID, $d: ID!) { cliForwards(projectId: $p, destinationId: $d) { ${CLI_FORWARD_FIELDS} } }`,
      variables: { p: this.projectId, d: this.session.destination.id },
      onForward: (forward: CliForward) => void this.handle(forward),
      onReady: () => this.ready(),
      onNotice: (message, level) => this.screen.notice(message, level),
      onFatal: (err) => void this.stop().then(() => this.done.reject(err)),
      exitAfterDisconnectMs: this.exitAfterDisconnectMs,
    });
    this.tunnel.open();
    this.keys = ListenKeys.attach(this);
    process.once('SIGINT', () => void this.quit());
    process.once('SIGTERM', () => void this.quit());
  }

  private ready(): void {
    this.screen.notice(`Ready! Forwarding ${this.describe()} → POST ${localUrl(this.target.port, this.target.path)}`);
    for (const source of this.session.sources) this.screen.notice(`${source.slug} receives at ${source.ingressUrl}`);
    this.screen.notice(`destination ${this.session.destination.name}${this.keys ? '   (h for help, q to quit)' : ''}`);
  }

  private describe(): string {
    const s = this.session;
    const options = [s.transformName && `transform ${s.transformName}`, s.templateName && `template ${s.templateName}`, s.delayMs && `delay ${s.delayMs} ms`].filter(Boolean);
    return `${s.sources.map((e) => e.slug).join(', ')}${options.length ? ` (${options.join(', ')})` : ''}`;
  }

  /** One forward: wait the session's delay, POST locally (or skip when paused), report, print. */
  private async handle(forward: CliForward): Promise<void> {
    this.lastEventId = forward.eventId;
    let result: ForwardResult;
    if (this.paused) {
      result = skippedResult(forward);
    } else {
      if (forward.delayMs > 0) await new Promise((r) => setTimeout(r, forward.delayMs));
      result = await forwardLocally(forward, this.target);
    }
    try {
      await this.tunnel!.execute('mutation Report($p: ID, $i: CliForwardResultInput!) { reportCliForward(projectId: $p, input: $i) }', { p: this.projectId, i: result });
    } catch (err) {
      this.screen.notice(`could not report the result of ${forward.eventId}: ${(err as Error).message}`, 'warn');
    }
    const replay = this.replays.delete(forward.deliveryId);
    this.screen.forward({ at: new Date(), forward, path: this.target.path, result, replay });
  }

  togglePause(): void {
    this.paused = !this.paused;
    this.screen.notice(this.paused ? 'paused: events are recorded as skipped, not forwarded (p to resume)' : 'resumed: forwarding events again');
  }

  async replayLast(): Promise<void> {
    if (!this.lastEventId) {
      this.screen.notice('no event to replay yet');
      return;
    }
    const eventId = this.lastEventId;
    try {
      const { replayCliEvent } = await this.call<{ replayCliEvent: { id: string } }>(
        'mutation Replay($p: ID, $d: ID!, $e: ID!) { replayCliEvent(projectId: $p, destinationId: $d, eventId: $e) { id } }',
        { p: this.projectId, d: this.session.destination.id, e: eventId },
      );
      this.replays.add(replayCliEvent.id);
      this.screen.notice(`replaying ${eventId}`);
    } catch (err) {
      this.screen.notice(`replay failed: ${(err as Error).message}`, 'warn');
    }
  }

  /** `c`: the session's current settings, for the menu. */
  get settings(): CliSession {
    return this.session;
  }

  async change(change: SessionChange): Promise<void> {
    try {
      this.session = await this.call<{ updateCliSession: CliSession }>(
        `mutation Update($p: ID, $d: ID!, $i: UpdateCliSessionInput!) { updateCliSession(projectId: $p, destinationId: $d, input: $i) { ${SESSION_FIELDS} } }`,
        { p: this.projectId, d: this.session.destination.id, i: change },
      ).then((r) => r.updateCliSession);
      this.screen.notice(`now forwarding ${this.describe()}`);
    } catch (err) {
      this.screen.notice(`change failed: ${(err as Error).message}`, 'warn');
    }
  }

  help(): void {
    for (const line of KEY_HELP.split('\n')) this.screen.notice(line);
  }

  /** `q` / Ctrl+C: the destination stays, so the next `listen` reuses it. */
  async quit(): Promise<void> {
    await this.stop();
    this.done.resolve();
  }

  private async stop(): Promise<void> {
    this.keys?.detach();
    await this.tunnel?.close();
    await closeHttpAgents();
  }

  private async call<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    try {
      return await this.client.request<T>(query, variables);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'no_sources') throw noSources(err.message);
      if (err instanceof ApiError && err.code === 'not_found') throw new CliError(`${err.message} (list the project's sources with GET /v1/endpoints)`, noSources().exitCode);
      throw err;
    }
  }
}
