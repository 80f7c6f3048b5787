import type { AppContainer } from '../app/container';
import { uuidv7LowerBound, uuidv7Millis } from '../common/ids';
import { NOTIFY } from '../common/notify-channels';
import type { AttemptView } from '../deliveries/delivery.view';
import type { EventView } from '../events/event.view';
import { Channel } from './channel';
import { attemptRowView, eventRowView } from './rows';

/**
 * Live events and delivery attempts for GraphQL subscriptions, fed across
 * processes by PostgreSQL LISTEN/NOTIFY (src/common/notify-channels.ts) on the
 * process's shared LISTEN connection (src/db/pg-notifications.ts), fan-out in process.
 *
 * Events: a notification triggers a scan of ids newer than the newest one
 * sent (ids are UUIDv7, time-ordered: one cheap range on the primary key).
 * Rows from concurrent writers commit slightly out of order, and `filtered`
 * events send no notification, so while anyone listens a sweep every second
 * re-reads from LOOKBACK_MS before the newest id and sends what it missed
 * (ids already sent are skipped).
 * Attempts: the notification names the attempt; it is re-read by id.
 * Only subscribers of the row's project (and matching filters) receive it.
 */
export interface EventFilter {
  projectId: string;
  endpointId?: string;
}
export interface AttemptFilter {
  projectId: string;
  eventId?: string;
  destinationId?: string;
}

const LOOKBACK_MS = 3000;
const POLL_MS = 1000;
const SCAN_BATCH = 1000;

const feeds = new WeakMap<AppContainer, LiveFeed>();

export class LiveFeed {
  private listening: Promise<void> | null = null;
  private removeListeners: Array<() => void> = [];
  private pollTimer: NodeJS.Timeout | undefined;
  private readonly eventSubs = new Set<{ filter: EventFilter; since: string; channel: Channel<EventView> }>();
  private readonly attemptSubs = new Set<{ filter: AttemptFilter; channel: Channel<AttemptView> }>();
  /** Newest event id sent, and its time (ms): notified scans start after it, sweeps LOOKBACK_MS before it. */
  private newestId = uuidv7LowerBound(Date.now());
  private watermarkMs = Date.now();
  private readonly seen = new Map<string, number>();
  private scanning: Promise<void> | null = null;
  private pendingScan: 'notified' | 'sweep' | null = null;
  private readonly pendingAttempts = new Set<string>();
  private attemptFlush: NodeJS.Timeout | undefined;

  private constructor(private readonly container: AppContainer) {}

  /** The process's feed for this container; stopped when the container closes. */
  static for(container: AppContainer): LiveFeed {
    let feed = feeds.get(container);
    if (!feed) {
      const created = new LiveFeed(container);
      feed = created;
      feeds.set(container, created);
      container.onClose('live feed', () => created.stop());
    }
    return feed;
  }

  /** Resolves once LISTEN is in place, so that nothing committed after a subscription starts is missed. */
  async subscribeEvents(filter: EventFilter): Promise<AsyncIterableIterator<EventView>> {
    await this.ensureListening();
    if (this.eventSubs.size === 0) this.skipTo(Date.now());
    // Only events received from now on (ids are time-ordered).
    const sub = { filter, since: uuidv7LowerBound(Date.now()), channel: new Channel<EventView>(() => this.eventSubs.delete(sub)) };
    this.eventSubs.add(sub);
    this.ensurePolling();
    return sub.channel;
  }

  async subscribeAttempts(filter: AttemptFilter): Promise<AsyncIterableIterator<AttemptView>> {
    await this.ensureListening();
    const sub = { filter, channel: new Channel<AttemptView>(() => this.attemptSubs.delete(sub)) };
    this.attemptSubs.add(sub);
    return sub.channel;
  }

  get subscriberCount(): number {
    return this.eventSubs.size + this.attemptSubs.size;
  }

  async stop(): Promise<void> {
    clearInterval(this.pollTimer);
    clearTimeout(this.attemptFlush);
    for (const sub of [...this.eventSubs, ...this.attemptSubs]) sub.channel.close();
    await this.listening;
    for (const remove of this.removeListeners) remove();
  }

  private get log() {
    return this.container.log;
  }

  private get knex() {
    return this.container.orm.em.getConnection().getKnex();
  }

  private ensureListening(): Promise<void> {
    const { notifications } = this.container;
    this.listening ??= Promise.all([
      // After a reconnection, sweep for whatever committed while notifications were lost.
      notifications.listen({ channel: NOTIFY.eventsCommitted, onNotify: () => this.scheduleScan('notified'), onConnect: () => this.scheduleScan('sweep') }),
      notifications.listen({ channel: NOTIFY.attemptsChanged, onNotify: (id) => id && this.queueAttempt(id) }),
    ]).then((removers) => {
      this.removeListeners = removers;
    });
    return this.listening;
  }

  private ensurePolling(): void {
    if (this.pollTimer) return;
    this.pollTimer = setInterval(() => {
      if (this.eventSubs.size === 0) {
        clearInterval(this.pollTimer);
        this.pollTimer = undefined;
        return;
      }
      this.scheduleScan('sweep');
    }, POLL_MS);
    this.pollTimer.unref();
  }

  /** Nobody listens: forget the past, so that the next subscriber's first scan starts at `ms`. */
  private skipTo(ms: number): void {
    this.watermarkMs = Math.max(this.watermarkMs, ms);
    const bound = uuidv7LowerBound(this.watermarkMs);
    if (bound > this.newestId) this.newestId = bound;
  }

  private scheduleScan(kind: 'notified' | 'sweep'): void {
    if (this.eventSubs.size === 0) {
      this.skipTo(Date.now() - LOOKBACK_MS);
      return;
    }
    if (this.scanning) {
      if (this.pendingScan !== 'sweep') this.pendingScan = kind;
      return;
    }
    this.scanning = this.scanEvents(kind)
      .catch((err) => this.log.warn({ err }, 'live feed could not read new events'))
      .finally(() => {
        this.scanning = null;
        const next = this.pendingScan;
        this.pendingScan = null;
        if (next) this.scheduleScan(next);
      });
  }

  private async scanEvents(kind: 'notified' | 'sweep'): Promise<void> {
    const projects = [...new Set([...this.eventSubs].map((s) => s.filter.projectId))];
    if (projects.length === 0) return;
    let after = kind === 'sweep' ? uuidv7LowerBound(this.watermarkMs - LOOKBACK_MS) : this.newestId;
    for (;;) {
      const { rows } = await this.knex.raw<{ rows: Array<{ id: string }> }>(
        'select id from events where id > ?::uuid and project_id = any(?::uuid[]) order by id limit ?',
        [after, `{${projects.join(',')}}`, SCAN_BATCH],
      );
      const fresh = rows.map((r) => r.id).filter((id) => !this.seen.has(id));
      if (fresh.length > 0) await this.emitEvents(fresh);
      if (rows.length < SCAN_BATCH) break;
      after = rows[rows.length - 1].id;
    }
    const horizon = this.watermarkMs - LOOKBACK_MS;
    for (const [id, ms] of this.seen) if (ms < horizon) this.seen.delete(id);
  }

  private async emitEvents(ids: string[]): Promise<void> {
    const { rows } = await this.knex.raw<{ rows: Array<Record<string, unknown>> }>(
      `select id, endpoint_id, project_id, organization_id, event_type, payload::text as payload_text, headers, source_ip, idempotency_key, status, created_at
         from events where id = any(?::uuid[]) order by id`,
      [`{${ids.join(',')}}`],
    );
    for (const row of rows) {
      const event = eventRowView(row);
      const ms = uuidv7Millis(event.id);
      this.seen.set(event.id, ms);
      this.watermarkMs = Math.max(this.watermarkMs, ms);
      if (event.id > this.newestId) this.newestId = event.id;
      for (const sub of this.eventSubs) {
        const f = sub.filter;
        if (f.projectId === event.project_id && (!f.endpointId || f.endpointId === event.endpoint_id) && event.id >= sub.since) sub.channel.push(event);
      }
    }
  }

  private queueAttempt(id: string): void {
    if (this.attemptSubs.size === 0) return;
    this.pendingAttempts.add(id);
    this.attemptFlush ??= setTimeout(() => {
      this.attemptFlush = undefined;
      const ids = [...this.pendingAttempts];
      this.pendingAttempts.clear();
      this.emitAttempts(ids).catch((err) => this.log.warn({ err }, 'live feed could not read attempts'));
    }, 5);
  }

  private async emitAttempts(ids: string[]): Promise<void> {
    const { rows } = await this.knex.raw<{ rows: Array<Record<string, unknown>> }>(
      `select a.*, d.project_id from delivery_attempts a join deliveries d on d.id = a.delivery_id
        where a.id = any(?::uuid[]) order by a.id`,
      [`{${ids.filter((id) => /^[0-9a-f-]{36}$/i.test(id)).join(',')}}`],
    );
    for (const row of rows) {
      const attempt = attemptRowView(row);
      const projectId = row.project_id as string;
      for (const sub of this.attemptSubs) {
        const f = sub.filter;
        if (f.projectId === projectId && (!f.eventId || f.eventId === attempt.event_id) && (!f.destinationId || f.destinationId === attempt.destination_id)) {
          sub.channel.push(attempt);
        }
      }
    }
  }
}

/**
 * type-graphql insists on a `pubSub` once any subscription exists, though ours
 * bring their own `subscribe` (the LiveFeed); topic-based ones are not used.
 */
export const noTopicPubSub = {
  publish(): void {
    throw new Error('Topic subscriptions are not used: subscriptions read the LiveFeed (src/subscriptions/live-feed.ts).');
  },
  subscribe(): never {
    throw new Error('Topic subscriptions are not used: subscriptions read the LiveFeed (src/subscriptions/live-feed.ts).');
  },
};
