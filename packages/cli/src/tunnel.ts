import type { Client } from 'graphql-ws';
import { type ApiClient, ApiError, REFRESH_MARGIN_MS, WS_FORBIDDEN, WS_UNAUTHORIZED as UNAUTHORIZED, isCloseEvent } from './api-client';
import { CliError, EXIT } from './cli-errors';
import type { CliForward } from './local-forwarder';

/** graphql-ws's code when connectionParams threw (here: the refresh was refused). */
const INTERNAL_CLIENT_ERROR = 4005;

export interface TunnelHandlers {
  query: string;
  variables: Record<string, unknown>;
  onForward(forward: CliForward): void;
  /** The first connection is up. */
  onReady(): void;
  onNotice(message: string, level: 'info' | 'warn'): void;
  /** The tunnel cannot go on (refresh refused, access lost, subscription refused, disconnected too long). */
  onFatal(err: Error): void;
  /** Connected again after a drop that began at `droppedAt`. */
  onReconnected?(droppedAt: Date): void;
  /** `--exit-after-disconnect`: give up after this long without a connection (default: never). */
  exitAfterDisconnectMs?: number;
}

/** One graphql-ws connection carrying the subscription; `retired` once a newer one replaced it. */
interface Connection {
  ws: Client;
  retired: boolean;
}

/** graphql-ws's dispose() rejects with the socket's error when a connection attempt is under way (the API is down): nothing to do then. */
const disposeQuietly = async (ws: Client): Promise<void> => {
  try {
    await ws.dispose();
  } catch {
    // the attempt failed: there is no socket to close
  }
};

/**
 * The `cliForwards` subscription, kept open. A drop (API restart: 1012, a
 * crash, network, a ping without pong) is retried forever by graphql-ws with
 * backoff and said on screen ("connection lost", "reconnecting (attempt n)",
 * "reconnected after 42 s"); only a refused credential (4401, after one
 * refresh) or lost access (4403) ends it, or `--exit-after-disconnect`. The API closes a socket when the access token
 * it was opened with expires, so shortly before that the tunnel opens a
 * second connection with a refreshed token and retires the first once the
 * second is up (no gap in which events would find no CLI); a 4401 anyway
 * (e.g. the machine slept) gets a refresh and a new connection.
 */
export class Tunnel {
  private current?: Connection;
  private connectedOnce = false;
  private dropped = false;
  /** When the connection was lost (for "reconnected after 42 s" and --exit-after-disconnect). */
  private droppedAt = 0;
  private giveUp?: NodeJS.Timeout;
  private closing = false;
  private lastAuthReconnect = 0;
  private rotation?: NodeJS.Timeout;

  constructor(
    private readonly client: ApiClient,
    private readonly handlers: TunnelHandlers,
    /** How long before the access token expires the tunnel moves to a fresh connection (within the client's refresh margin). */
    private readonly rotateBeforeMs = REFRESH_MARGIN_MS / 2,
  ) {}

  open(): void {
    const previous = this.current;
    const conn: Connection = { ws: undefined as unknown as Client, retired: false };
    conn.ws = this.client.wsClient({
      connected: () => {
        if (conn.retired) return;
        if (previous && !previous.retired) this.retire(previous);
        this.scheduleRotation();
        if (!this.connectedOnce) {
          this.connectedOnce = true;
          this.handlers.onReady();
        } else if (this.dropped) {
          this.dropped = false;
          clearTimeout(this.giveUp);
          this.handlers.onNotice(`reconnected after ${Math.round((Date.now() - this.droppedAt) / 1000)} s`, 'info');
          this.handlers.onReconnected?.(new Date(this.droppedAt));
        }
      },
      closed: (event) => {
        if (conn.retired || this.closing || !this.connectedOnce || this.dropped || [UNAUTHORIZED, WS_FORBIDDEN, INTERNAL_CLIENT_ERROR].includes(event.code)) return;
        this.dropped = true;
        this.droppedAt = Date.now();
        this.handlers.onNotice(`connection lost (${event.code}${event.reason ? ` ${event.reason}` : ''}): reconnecting…`, 'warn');
        this.scheduleGiveUp(conn);
      },
      retrying: (attempt) => {
        if (!conn.retired && !this.closing && this.dropped) this.handlers.onNotice(`reconnecting (attempt ${attempt})…`, 'info');
      },
    });
    this.current = conn;
    conn.ws.subscribe<{ cliForwards: CliForward }>(
      { query: this.handlers.query, variables: this.handlers.variables },
      {
        next: (result) => {
          if (result.errors?.length) this.fail(conn, new CliError(`the API refused the tunnel: ${result.errors[0].message}`));
          else if (result.data) this.handlers.onForward(result.data.cliForwards);
        },
        error: (err) => void this.onError(conn, err),
        complete: () => this.fail(conn, new CliError('the API ended the tunnel')),
      },
    );
  }

  /** A fresh connection a little before the access token expires (the margin in which the API client refreshes it). */
  private scheduleRotation(): void {
    clearTimeout(this.rotation);
    const expiresAt = this.client.accessTokenExpiresAt();
    if (expiresAt === undefined) return;
    const inMs = Math.max(1_000, expiresAt - Date.now() - this.rotateBeforeMs);
    this.rotation = setTimeout(() => this.open(), inMs);
    this.rotation.unref();
  }

  private scheduleGiveUp(conn: Connection): void {
    const limit = this.handlers.exitAfterDisconnectMs;
    if (limit === undefined) return;
    clearTimeout(this.giveUp);
    this.giveUp = setTimeout(
      () => this.fail(conn, new CliError(`no connection to the API for ${limit / 1000} s (--exit-after-disconnect): giving up`, EXIT.unreachable)),
      limit,
    );
  }

  private retire(conn: Connection): void {
    conn.retired = true;
    void disposeQuietly(conn.ws);
  }

  private async onError(conn: Connection, err: unknown): Promise<void> {
    if (conn.retired || this.closing) return;
    if (isCloseEvent(err) && err.code === UNAUTHORIZED && Date.now() - this.lastAuthReconnect > 10_000) {
      this.lastAuthReconnect = Date.now();
      try {
        await this.client.accessToken({ force: true });
      } catch (refreshErr) {
        return this.fail(conn, refreshErr as Error);
      }
      this.retire(conn);
      return this.open();
    }
    if (isCloseEvent(err) && err.code === INTERNAL_CLIENT_ERROR && this.client.lastConnectionError) return this.fail(conn, this.client.lastConnectionError);
    if (isCloseEvent(err) && err.code === WS_FORBIDDEN) return this.fail(conn, new CliError(`access refused by the API: ${err.reason || 'forbidden'}`));
    if (isCloseEvent(err)) return this.fail(conn, new CliError(`the API closed the tunnel: ${err.reason || `code ${err.code}`}`));
    if (Array.isArray(err)) return this.fail(conn, new CliError(`the API refused the tunnel: ${(err[0] as { message?: string })?.message ?? 'unknown error'}`));
    this.fail(conn, err instanceof Error ? err : new CliError(String(err)));
  }

  private fail(conn: Connection, err: Error): void {
    if (conn.retired || this.closing) return;
    this.handlers.onFatal(err);
  }

  /**
   * A mutation over the tunnel's own socket (reportCliForward): no HTTP round
   * trip per event, and, like every graphql-ws message, not counted against
   * the management API's per-user request budget — which a busy `listen`
   * (one report per event) would otherwise use up in seconds.
   */
  execute<T>(query: string, variables: Record<string, unknown>): Promise<T> {
    const ws = this.current?.ws;
    if (!ws) return Promise.reject(new CliError('the tunnel is not open'));
    return new Promise<T>((resolve, reject) => {
      let answer: { data?: unknown; errors?: ReadonlyArray<{ message: string; extensions?: Record<string, unknown> }> } | undefined;
      ws.subscribe(
        { query, variables },
        {
          next: (result) => (answer = result),
          error: (err) => reject(err instanceof Error ? err : new CliError(Array.isArray(err) ? String(err[0]?.message) : `the tunnel closed (${(err as { code?: number }).code ?? 'unknown'})`)),
          complete: () => {
            const error = answer?.errors?.[0];
            if (!answer) reject(new CliError('the tunnel closed before the API answered'));
            else if (error) reject(new ApiError(error.message, String(error.extensions?.code ?? 'error'), error.extensions?.status as number | undefined));
            else resolve(answer?.data as T);
          },
        },
      );
    });
  }

  async close(): Promise<void> {
    this.closing = true;
    clearTimeout(this.rotation);
    clearTimeout(this.giveUp);
    if (this.current) await disposeQuietly(this.current.ws);
  }
}
