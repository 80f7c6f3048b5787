import { Client } from 'pg';
import { DependencyState } from '../common/backoff';
import type { Logger } from '../common/logger';
import { pgClientConfig } from './pg-connection';

export interface NotificationListener {
  /** A channel of src/common/notify-channels.ts. */
  channel: string;
  onNotify(payload: string): void;
  /**
   * After every (re)connection: notifications sent while the connection was
   * down are lost, so catch up here (rescan, drop caches).
   */
  onConnect?(): void;
}

const RECONNECT_MS = 1000;

/**
 * The process's one LISTEN connection, shared by every part that reacts to
 * PostgreSQL notifications (ingress's endpoint cache, the outbox dispatcher,
 * GraphQL subscriptions). Opened on first use; reconnects every second after
 * an error until closed.
 */
export class PgNotifications {
  private client: Client | null = null;
  private listening = new Set<string>();
  private connecting: Promise<void> | null = null;
  private retry: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly listeners = new Set<NotificationListener>();
  private readonly state: DependencyState;

  constructor(
    private readonly databaseUrl: string,
    private readonly log: Logger,
  ) {
    this.state = new DependencyState(log);
  }

  /**
   * Registers a listener; resolves once its channel is LISTENed on, or the
   * connection attempt has failed (reconnection goes on, and `onConnect`
   * says when it is back). Returns the function that removes the listener.
   */
  async listen(listener: NotificationListener): Promise<() => void> {
    this.listeners.add(listener);
    const remove = () => void this.listeners.delete(listener);
    if (!this.client) {
      await this.ensureConnected();
    } else if (!this.listening.has(listener.channel)) {
      await this.client
        .query(`listen "${listener.channel}"`)
        .then(() => this.listening.add(listener.channel))
        .catch((err) => this.lost(this.client, err));
    }
    return remove;
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retry);
    await this.connecting;
    const client = this.client;
    this.client = null;
    if (client) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
    }
  }

  private ensureConnected(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.connecting ??= this.connect()
      .catch((err) => {
        this.state.failed(err, 'could not LISTEN for database notifications; retrying every second');
        this.scheduleReconnect();
      })
      .finally(() => (this.connecting = null));
    return this.connecting;
  }

  private async connect(): Promise<void> {
    const client = new Client(pgClientConfig(this.databaseUrl));
    client.on('notification', (msg) => {
      for (const l of this.listeners) if (l.channel === msg.channel) l.onNotify(msg.payload ?? '');
    });
    client.on('error', (err) => this.lost(client, err));
    client.on('end', () => this.lost(client));
    const listening = new Set<string>();
    try {
      await client.connect();
      // Listeners may register while a LISTEN is in flight: loop until every channel is covered.
      for (;;) {
        const pending = [...new Set([...this.listeners].map((l) => l.channel))].filter((c) => !listening.has(c));
        if (pending.length === 0) break;
        await client.query(pending.map((c) => `listen "${c}"`).join('; '));
        for (const c of pending) listening.add(c);
      }
    } catch (err) {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      throw err;
    }
    this.client = client;
    this.listening = listening;
    this.state.succeeded('listening for database notifications again');
    for (const l of this.listeners) l.onConnect?.();
  }

  private lost(client: Client | null, err?: Error): void {
    if (!client || this.client !== client) return;
    this.client = null;
    this.log.warn({ err }, 'database notification connection lost; reconnecting');
    client.removeAllListeners('end');
    client.end().catch(() => undefined);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.closed || this.retry) return;
    this.retry = setTimeout(() => {
      this.retry = undefined;
      void this.ensureConnected();
    }, RECONNECT_MS);
    this.retry.unref();
  }
}
