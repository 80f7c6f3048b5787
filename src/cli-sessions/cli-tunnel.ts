import os from 'node:os';
import type { AppContainer } from '../app/container';
import { uuidv7 } from '../common/ids';
import { NOTIFY } from '../common/notify-channels';
import { Channel } from '../subscriptions/channel';
import { parseForwardNotice } from './cli-forward-notice';
import { CLI_HEARTBEAT_MS } from './cli-limits';
import type { CliForwardView } from '../../packages/cli/src/shared/wire';

export type { CliForwardView };

interface Session {
  rowId: string;
  destinationId: string;
  channel: Channel<CliForwardView>;
}

/** Forwards already pushed are remembered this long, so that a rescan after a reconnection does not push them twice. */
const SENT_MEMORY_MS = 10 * 60_000;

/** Presence rows this stale belong to a process that is gone: removed by any live one. */
const STALE_ROW_TTL_MS = 60_000;
/** A forward older than this has no worker waiting for it (RELAY_DELIVERY_TIMEOUT_MS is at most 300 s, a delay at most 10 s). */
const FORWARD_TTL_MS = 3_600_000;

const tunnels = new WeakMap<AppContainer, CliTunnel>();

/**
 * The API side of `relay listen`: while a `cliForwards` subscription is open
 * its process keeps a `cli_sessions` row (heartbeat every CLI_HEARTBEAT_MS;
 * removed on unsubscribe), which is how a worker knows a CLI is connected.
 * Workers NOTIFY `relay_cli_forwards` with `<destination id> <forward id>`
 * and, when it fits, the forward itself (src/cli-sessions/cli-forward-notice.ts);
 * every API process hears it and only the one(s) holding a subscription for
 * that destination push it (reading it first when the notice has ids only). After a reconnection of the
 * LISTEN connection, unanswered forwards of local sessions are rescanned.
 * Deleting the destination deletes its rows (cascade); the next heartbeat
 * then ends its subscriptions.
 */
export class CliTunnel {
  /** Names this process in `cli_sessions.instance_id` (for operators: which API process holds which CLI). */
  readonly instanceId = `${os.hostname()}:${process.pid}:${uuidv7().slice(-12)}`;
  private readonly sessions = new Set<Session>();
  private readonly sent = new Map<string, number>();
  private listening: Promise<void> | null = null;
  private removeListener: (() => void) | null = null;
  private heartbeat: NodeJS.Timeout | undefined;

  private constructor(private readonly container: AppContainer) {}

  static for(container: AppContainer): CliTunnel {
    let tunnel = tunnels.get(container);
    if (!tunnel) {
      const created = new CliTunnel(container);
      tunnel = created;
      tunnels.set(container, created);
      container.onClose('cli tunnel', () => created.stop());
    }
    return tunnel;
  }

  /** This process's tunnel when it has one (an API process, or `relay start`'s API + worker in one); never creates it. */
  static existing(container: Pick<AppContainer, 'orm'>): CliTunnel | undefined {
    return tunnels.get(container as AppContainer);
  }

  /**
   * A forward this same process just stored and announced (`relay start`, tests: worker and API in one): pushed
   * now rather than after the notification's trip through PostgreSQL, which then finds it sent.
   */
  handOff(destinationId: string, forward: CliForwardView): void {
    this.deliver([{ destinationId, forward }]);
  }

  /** Opens a session: LISTEN first, then the presence row, so that no forward made after the row exists is missed. */
  async open(destinationId: string): Promise<AsyncIterableIterator<CliForwardView>> {
    await this.ensureListening();
    const rowId = uuidv7();
    await this.knex.raw('insert into cli_sessions (id, destination_id, instance_id) values (?, ?, ?)', [rowId, destinationId, this.instanceId]);
    const session: Session = {
      rowId,
      destinationId,
      channel: new Channel<CliForwardView>(() => this.closed(session)),
    };
    this.sessions.add(session);
    this.ensureHeartbeat();
    return session.channel;
  }

  get openCount(): number {
    return this.sessions.size;
  }

  async stop(): Promise<void> {
    clearInterval(this.heartbeat);
    const rows = [...this.sessions].map((s) => s.rowId);
    for (const s of [...this.sessions]) s.channel.close();
    await this.listening;
    this.removeListener?.();
    if (rows.length > 0) await this.knex.raw('delete from cli_sessions where id = any(?::uuid[])', [`{${rows.join(',')}}`]).catch(() => undefined);
  }

  private get knex() {
    return this.container.orm.em.getConnection().getKnex();
  }

  private closed(session: Session): void {
    this.sessions.delete(session);
    if (this.sessions.size === 0) {
      clearInterval(this.heartbeat);
      this.heartbeat = undefined;
    }
    this.knex
      .raw('delete from cli_sessions where id = ?', [session.rowId])
      .catch((err: unknown) => this.container.log.warn({ err }, 'could not remove a CLI presence row; it goes stale'));
  }

  private ensureListening(): Promise<void> {
    this.listening ??= this.container.notifications
      .listen({
        channel: NOTIFY.cliForwards,
        onNotify: (payload) => this.onForward(payload),
        // Notifications sent while the connection was down are lost: look for unanswered forwards.
        onConnect: () => this.push(null),
      })
      .then((remove) => {
        this.removeListener = remove;
      });
    return this.listening;
  }

  private ensureHeartbeat(): void {
    if (this.heartbeat) return;
    this.heartbeat = setInterval(() => {
      const rows = [...this.sessions].map((s) => s.rowId);
      if (rows.length === 0) return;
      // Swept here too: rows of API processes that died without unsubscribing, and forwards whose worker
      // never came back for them (a workflow terminated mid-wait; any wait ends long before FORWARD_TTL_MS).
      this.knex
        .raw(
          `with beat as (update cli_sessions set heartbeat_at = now() where id = any(?::uuid[]) returning id),
                swept as (delete from cli_sessions where heartbeat_at < now() - make_interval(secs => ?) and not id = any(?::uuid[])),
                abandoned as (delete from cli_forwards where created_at < now() - make_interval(secs => ?))
           select id from beat`,
          [`{${rows.join(',')}}`, STALE_ROW_TTL_MS / 1000, `{${rows.join(',')}}`, FORWARD_TTL_MS / 1000],
        )
        .then(({ rows: alive }: { rows: Array<{ id: string }> }) => {
          // A row that is gone went with its destination (deleted): end the subscription, the CLI starts a new session.
          const ids = new Set(alive.map((r) => r.id));
          for (const s of [...this.sessions]) if (rows.includes(s.rowId) && !ids.has(s.rowId)) s.channel.close();
        })
        .catch((err: unknown) => this.container.log.warn({ err }, 'CLI presence heartbeat failed'));
    }, CLI_HEARTBEAT_MS);
    this.heartbeat.unref();
  }

  /** A worker's notice (src/cli-sessions/cli-forward-notice.ts): the forward itself is pushed at once; ids only, it is read first. */
  private onForward(payload: string): void {
    const notice = parseForwardNotice(payload);
    if (!notice || ![...this.sessions].some((s) => s.destinationId === notice.destinationId)) return;
    if (notice.forward) this.deliver([{ destinationId: notice.destinationId, forward: notice.forward }]);
    else this.push([notice.forwardId]);
  }

  /** Reads the forwards (`null`: every unanswered one of this process's sessions) and pushes each to its destination's sessions. */
  private push(forwardIds: string[] | null): void {
    const destinations = [...new Set([...this.sessions].map((s) => s.destinationId))];
    if (destinations.length === 0) return;
    this.readForwards(forwardIds, destinations)
      .then((forwards) => this.deliver(forwards))
      .catch((err: unknown) => this.container.log.warn({ err }, 'could not read CLI forwards'));
  }

  /** Pushes each forward to its destination's sessions, once (a rescan or a second notice does not push it again). */
  private deliver(forwards: Array<{ destinationId: string; forward: CliForwardView }>): void {
    const now = Date.now();
    for (const [id, at] of this.sent) if (now - at > SENT_MEMORY_MS) this.sent.delete(id);
    for (const { destinationId, forward } of forwards) {
      if (this.sent.has(forward.id)) continue;
      this.sent.set(forward.id, now);
      for (const s of this.sessions) if (s.destinationId === destinationId) s.channel.push(forward);
    }
  }

  private async readForwards(ids: string[] | null, destinations: string[]): Promise<Array<{ destinationId: string; forward: CliForwardView }>> {
    const { rows } = await this.knex.raw(
      `select f.id, f.destination_id, f.event_id, f.delivery_id, f.attempt_number, f.headers, f.body, f.delay_ms,
              e.event_type, e.created_at as received_at, ep.slug as source_slug
         from cli_forwards f
         join events e on e.id = f.event_id
         join deliveries d on d.id = f.delivery_id
         join webhook_endpoints ep on ep.id = d.endpoint_id
        where f.result is null and f.destination_id = any(?::uuid[]) and (?::uuid[] is null or f.id = any(?::uuid[]))
        order by f.id`,
      [`{${destinations.join(',')}}`, ids && `{${ids.join(',')}}`, ids && `{${ids.join(',')}}`],
    );
    return rows.map((r: Record<string, unknown>) => ({
      destinationId: r.destination_id as string,
      forward: {
        id: r.id as string,
        eventId: r.event_id as string,
        deliveryId: r.delivery_id as string,
        attemptNumber: r.attempt_number as number,
        eventType: r.event_type as string,
        sourceSlug: r.source_slug as string,
        receivedAt: new Date(r.received_at as string).toISOString(),
        method: 'POST',
        headers: r.headers as Record<string, string>,
        body: r.body as string,
        delayMs: r.delay_ms as number,
      },
    }));
  }
}
