import os from 'node:os';
import { closeLocalAgents } from './local-post';
import { ApiClient, ApiError } from './api-client';
import { CliError, EXIT, noSources } from './cli-errors';
import { profileStore, resolveApiUrl } from './config-store';
import { ListenKeys } from './listen-keys';
import type { Condition } from './shared/conditions';
import { describeFilters, filterRefusal, parseEventTypes, parseFilter } from './listen-filter';
import { type ForwardDetail, forwardDetail, ForwardHistory } from './listen-inspect';
import { type ForwardLine, KEY_HELP, ListenScreen, type OutputMode } from './listen-screen';
import { isListening, type ListenTarget, nothingListening, parseHeader, parseRoute, parseTarget, type Route, routePath } from './listen-target';
import { type CliForward, type ForwardResult, forwardLocally, localHeaders, parseDelayMs, skippedResult } from './local-forwarder';
import { CLI_FORWARD_FIELDS } from './shared/wire';
import { tryOpenBrowser } from './open-browser';
import { Tunnel } from './tunnel';
import { MissedEventsOffer } from './listen-missed';
import { missingSourceSlug, unknownSource } from './unknown-source';

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
  /** Print the session's signing secret and exit. */
  printSecret?: boolean;
  /** `--signature-scheme`: how forwards are signed (commander allows only these); absent keeps the session's. */
  signatureScheme?: SignatureScheme;
  allowExternal?: boolean;
  insecure?: boolean;
  /** Repeatable `--header 'K: V'`. */
  header?: string[];
  /** Repeatable `--route <event type or source>=<path>`. */
  route?: string[];
  profile?: string;
  /** Forward the events that arrived while disconnected, on reconnect, without asking. */
  forwardMissed?: boolean;
  /** Repeatable `--event-type a,b`: only these event types. */
  eventType?: string[];
  /** Repeatable `--filter '<field> <op> <value>'`: all must match. */
  filter?: string[];
}

/** How events reach the local server. */
export interface Delivery {
  target: ListenTarget;
  routes: Route[];
  headers: Record<string, string>;
  insecure: boolean;
}

/** How often a running `listen` checks that something listens at the target. */
const TARGET_CHECK_MS = 5_000;

/** The session as `startCliSession` / `updateCliSession` answer it. */
export interface CliSession {
  destination: { id: string; name: string };
  /** `ingressUrl` is null for the system source (operational events: docs/operational-events.md). */
  sources: Array<{ slug: string; ingressUrl: string | null }>;
  transformName: string | null;
  templateName: string | null;
  delayMs: number;
  eventTypes: string[];
  filters: Condition[];
  signatureScheme: SignatureScheme;
}
/** `service`: X-<prefix>-Signature; `standard`: Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature). */
export type SignatureScheme = 'service' | 'standard';
const SESSION_FIELDS = 'destination { id name } sources { slug ingressUrl } transformName templateName delayMs eventTypes filters { field operator value } signatureScheme';
const SECRET_FIELDS = `${SESSION_FIELDS} signingSecret`;

export interface SessionChange {
  sourceSlugs?: string[];
  transformName?: string | null;
  templateName?: string | null;
  delayMs?: number;
  eventTypes?: string[];
  filters?: Condition[];
  signatureScheme?: SignatureScheme;
}

/** `relay listen <port|url> [source_slug]`: forwards the project's live events to a local server until `q` / Ctrl+C. */
export async function listen(targetArg: string | undefined, sourceSlug: string | undefined, opts: ListenOptions, store = profileStore(opts)): Promise<void> {
  const client = new ApiClient(resolveApiUrl(opts.apiUrl, store.read()), store);
  if (opts.printSecret) {
    // `relay listen --print-secret [source_slug]`: the target does not matter (the secret belongs to the session).
    const slug = sourceSlug ?? (targetArg !== undefined && !/^\d+$/.test(targetArg) && !targetArg.includes('://') ? targetArg : undefined);
    const session = await new Listener(client, new ListenScreen('pretty'), undefined, opts.project).open({ sourceSlugs: slug ? [slug] : undefined, signatureScheme: opts.signatureScheme }, SECRET_FIELDS);
    process.stdout.write(`${session.signingSecret}\n`);
    return;
  }
  if (targetArg === undefined) throw new CliError('listen needs a port or a URL: relay listen 4000 (or --print-secret)', EXIT.usage);
  const delivery: Delivery = {
    target: parseTarget(targetArg, { path: opts.path, allowExternal: opts.allowExternal }),
    routes: (opts.route ?? []).map(parseRoute),
    headers: Object.fromEntries((opts.header ?? []).map(parseHeader)),
    insecure: opts.insecure === true,
  };
  const delayMs = opts.delay === undefined ? undefined : parseDelayMs(opts.delay);
  const filterTexts = opts.filter ?? [];
  const filters = filterTexts.map(parseFilter);
  const eventTypes = parseEventTypes(opts.eventType ?? []);
  const exitAfterDisconnectMs = opts.exitAfterDisconnect === undefined ? undefined : parseSeconds(opts.exitAfterDisconnect, '--exit-after-disconnect') * 1000;
  const screen = new ListenScreen(opts.output ?? 'pretty');
  const listener = new Listener(client, screen, delivery, opts.project, exitAfterDisconnectMs, opts.forwardMissed === true);
  try {
    await listener.start({
      sourceSlugs: sourceSlug ? [sourceSlug] : undefined,
      transformName: opts.transform,
      templateName: opts.template,
      delayMs,
      eventTypes,
      filters,
      signatureScheme: opts.signatureScheme,
    });
  } catch (err) {
    throw filterRefusal(err, filterTexts) ?? err;
  }
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
  private session!: CliSession & { signingSecret?: string };
  private targetUp = true;
  private targetCheck?: NodeJS.Timeout;
  private lastEventId?: string;
  private readonly replays = new Set<string>();
  /** The lines printed so far, for ↑/↓, d and o. */
  private readonly history = new ForwardHistory<ForwardLine & { detail: ForwardDetail }>();
  private tunnel?: Tunnel;
  private keys?: ListenKeys;
  /** Events that arrived while no CLI was listening, waiting for `f`. */
  private readonly missed: MissedEventsOffer;
  private done!: { resolve: () => void; reject: (err: unknown) => void };
  readonly finished = new Promise<void>((resolve, reject) => (this.done = { resolve, reject }));

  constructor(
    private readonly client: ApiClient,
    private readonly screen: ListenScreen,
    private readonly delivery: Delivery | undefined,
    private readonly projectId?: string,
    private readonly exitAfterDisconnectMs?: number,
    private readonly forwardMissedAutomatically = false,
  ) {
    this.missed = new MissedEventsOffer({
      screen: this.screen,
      ask: () =>
        this.call<{ cliMissedEvents: string[] }>('query Missed($p: ID, $d: ID!) { cliMissedEvents(projectId: $p, destinationId: $d) }', {
          p: this.projectId,
          d: this.session.destination.id,
        }).then((r) => r.cliMissedEvents),
      replay: (eventId) => this.replay(eventId),
      then: () => (this.forwardMissedAutomatically ? 'forwarding' : this.keys ? 'press f' : 'no keyboard'),
      delayMs: () => this.session.delayMs,
    });
  }

  /** Starts (or reuses) the session's `cli` destination. */
  async open(input: SessionChange, fields = SESSION_FIELDS): Promise<CliSession & { signingSecret?: string }> {
    this.session = await this.call<{ startCliSession: CliSession & { signingSecret?: string } }>(
      `mutation Start($p: ID, $i: StartCliSessionInput!) { startCliSession(projectId: $p, input: $i) { ${fields} } }`,
      { p: this.projectId, i: { machine: os.hostname(), ...input } },
    ).then((r) => r.startCliSession);
    return this.session;
  }

  async start(input: SessionChange): Promise<void> {
    await this.open(input);
    this.tunnel = new Tunnel(this.client, {
      query: `subscription Forwards($p: ID, $d: ID!) { cliForwards(projectId: $p, destinationId: $d) { ${CLI_FORWARD_FIELDS} } }`,
      variables: { p: this.projectId, d: this.session.destination.id },
      onForward: (forward: CliForward) => void this.handle(forward),
      onReady: () => void this.ready(),
      onNotice: (message, level) => this.screen.notice(message, level),
      onFatal: (err) => void this.stop().then(() => this.done.reject(err)),
      exitAfterDisconnectMs: this.exitAfterDisconnectMs,
      onReconnected: () => void this.missed.find(),
    });
    this.tunnel.open();
    this.keys = ListenKeys.attach(this);
    process.once('SIGINT', () => void this.quit());
    process.once('SIGTERM', () => void this.quit());
  }

  private async ready(): Promise<void> {
    const { target, routes } = this.delivery!;
    // Checked before "Ready!", so the warning is the first thing a developer whose server is not up yet sees.
    this.targetUp = await isListening(target);
    if (!this.targetUp) this.screen.notice(nothingListening(target), 'warn');
    this.screen.notice(`Ready! Forwarding ${this.describe()} → POST ${target.origin}${target.path}`);
    if (describeFilters(this.session.eventTypes, this.session.filters)) this.showFilters();
    for (const route of routes) this.screen.notice(`route ${route.match} → POST ${target.origin}${route.path}`);
    for (const source of this.session.sources) {
      this.screen.notice(source.ingressUrl ? `${source.slug} receives at ${source.ingressUrl}` : `${source.slug} carries the service's operational events`);
    }
    this.screen.notice(`destination ${this.session.destination.name}${this.keys ? '   (h for help, q to quit)' : ''}`);
    const scheme = this.session.signatureScheme === 'standard' ? 'Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature' : 'service scheme: X-<prefix>-Timestamp, X-<prefix>-Signature';
    this.screen.notice(`forwards are signed like webhook deliveries with this session's secret (${scheme}; relay listen --print-secret)`);
    this.watchTarget();
    // After a `q`, Ctrl+C or kill -9 of the last `listen`: what arrived while nothing listened.
    await this.missed.find();
  }

  /** While running: a warning when the local server goes away, a notice when it is back. */
  private watchTarget(): void {
    this.targetCheck = setInterval(() => {
      void isListening(this.delivery!.target).then((up) => {
        if (up === this.targetUp) return;
        this.targetUp = up;
        if (up) this.screen.notice(`${this.delivery!.target.origin} is listening again`);
        else this.screen.notice(nothingListening(this.delivery!.target), 'warn');
      });
    }, TARGET_CHECK_MS);
    this.targetCheck.unref();
  }

  /** The headers added to each forward: X-Forwarded-Host (the host the sender used) unless the event had one, then --header. */
  private extraHeaders(forward: CliForward): Record<string, string> {
    const ingress = this.session.sources.find((s) => s.slug === forward.sourceSlug)?.ingressUrl;
    const forwardedHost = Object.keys(forward.headers).some((name) => name.toLowerCase() === 'x-forwarded-host');
    return { ...(ingress && !forwardedHost ? { 'x-forwarded-host': new URL(ingress).host } : {}), ...this.delivery!.headers };
  }

  private describe(): string {
    const s = this.session;
    const options = [s.transformName && `transform ${s.transformName}`, s.templateName && `template ${s.templateName}`, s.delayMs && `delay ${s.delayMs} ms`].filter(Boolean);
    return `${s.sources.map((e) => e.slug).join(', ')}${options.length ? ` (${options.join(', ')})` : ''}`;
  }

  /** One forward: wait the session's delay, POST locally (or skip when paused), report, print. */
  private async handle(forward: CliForward): Promise<void> {
    this.lastEventId = forward.eventId;
    const { target, routes, insecure } = this.delivery!;
    const path = routePath(routes, forward, target.path);
    const url = `${target.origin}${path}`;
    const extraHeaders = this.extraHeaders(forward);
    let result: ForwardResult;
    if (this.paused) {
      result = skippedResult(forward);
    } else {
      if (forward.delayMs > 0) await new Promise((r) => setTimeout(r, forward.delayMs));
      result = await forwardLocally(forward, { url, extraHeaders, insecure });
    }
    try {
      await this.tunnel!.execute('mutation Report($p: ID, $i: CliForwardResultInput!) { reportCliForward(projectId: $p, input: $i) }', { p: this.projectId, i: result });
    } catch (err) {
      this.screen.notice(`could not report the result of ${forward.eventId}: ${(err as Error).message}`, 'warn');
    }
    const replay = this.replays.delete(forward.deliveryId);
    const line = { at: new Date(), forward, path, result, replay, detail: forwardDetail({ url, headers: localHeaders(forward, extraHeaders), body: forward.body }, result) };
    this.history.add(line);
    this.screen.forward(line);
    this.missed.forwarded(forward.eventId);
  }

  /** ↑ (-1) / ↓ (+1): the line `d` and `o` act on (the newest until one is chosen). */
  select(delta: number): void {
    const picked = this.history.move(delta);
    if (!picked) return this.screen.notice('no events yet');
    this.screen.selected(picked.entry, picked.index, picked.count);
  }

  /** `d`: the selected event's request and response. */
  showDetail(): void {
    const line = this.history.current;
    if (!line) return this.screen.notice('no events yet');
    this.screen.detail(line);
  }

  /** `o`: the selected event's page in the dashboard (served by the API), in the browser when there is one. */
  openInDashboard(): void {
    const line = this.history.current;
    if (!line) return this.screen.notice('no events yet');
    const url = `${this.client.apiUrl}/events/${line.forward.eventId}`;
    this.screen.notice(`opening ${url}`);
    tryOpenBrowser(url);
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
    await this.replay(this.lastEventId);
  }

  /** True when the API made the replay. */
  private async replay(eventId: string): Promise<boolean> {
    try {
      const { replayCliEvent } = await this.call<{ replayCliEvent: { id: string } }>(
        'mutation Replay($p: ID, $d: ID!, $e: ID!) { replayCliEvent(projectId: $p, destinationId: $d, eventId: $e) { id } }',
        { p: this.projectId, d: this.session.destination.id, e: eventId },
      );
      this.replays.add(replayCliEvent.id);
      this.screen.notice(`replaying ${eventId}`);
      return true;
    } catch (err) {
      this.screen.notice(`replay failed: ${(err as Error).message}`, 'warn');
      return false;
    }
  }

  /** `f`: the events that arrived while no CLI was listening, oldest first. */
  forwardMissed(): Promise<void> {
    return this.missed.forward();
  }

  /** `c`: the session's current settings, for the menu. */
  get settings(): CliSession {
    return this.session;
  }

  /** The header's filter line: what the server lets through to this session. */
  private showFilters(): void {
    const filters = describeFilters(this.session.eventTypes, this.session.filters);
    this.screen.notice(filters ? `only events where ${filters} (filtered on the server: others are not forwarded)` : 'no event type or filter: every event is forwarded');
  }

  /**
   * `c`: the running session changed with updateCliSession (the worker reads it for the next event). A filter the API
   * refuses is thrown (as `invalid --filter "<filterTexts[i]>": why`) for the menu to ask again; other failures are notices.
   */
  async change(change: SessionChange, filterTexts: readonly string[] = []): Promise<void> {
    try {
      this.session = await this.call<{ updateCliSession: CliSession }>(
        `mutation Update($p: ID, $d: ID!, $i: UpdateCliSessionInput!) { updateCliSession(projectId: $p, destinationId: $d, input: $i) { ${SESSION_FIELDS} } }`,
        { p: this.projectId, d: this.session.destination.id, i: change },
      ).then((r) => r.updateCliSession);
    } catch (err) {
      const refused = filterRefusal(err, filterTexts);
      if (refused) throw refused;
      this.screen.notice(`change failed: ${(err as Error).message}`, 'warn');
      return;
    }
    this.screen.notice(`now forwarding ${this.describe()}`);
    if (change.eventTypes !== undefined || change.filters !== undefined) this.showFilters();
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
    this.missed.stop();
    clearInterval(this.targetCheck);
    this.keys?.detach();
    await this.tunnel?.close();
    await closeLocalAgents();
  }

  private async call<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    try {
      return await this.client.request<T>(query, variables);
    } catch (err) {
      if (err instanceof ApiError && err.code === 'no_sources') throw noSources(err.message);
      const slug = missingSourceSlug(err);
      if (slug !== null) throw await unknownSource(this.client, this.projectId, slug);
      throw err;
    }
  }
}
