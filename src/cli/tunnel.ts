import type { Client } from 'graphql-ws';
import type { ApiClient } from './api-client';
import { CliError } from './cli-errors';
import type { CliForward } from './local-forwarder';

/** graphql-ws close codes the tunnel treats specially. */
const UNAUTHORIZED = 4401;
const INTERNAL_CLIENT_ERROR = 4005;

export interface TunnelHandlers {
  query: string;
  variables: Record<string, unknown>;
  onForward(forward: CliForward): void;
  /** The first connection is up. */
  onReady(): void;
  onNotice(message: string, level: 'info' | 'warn'): void;
  /** The tunnel cannot go on (refresh refused, access lost, subscription refused). */
  onFatal(err: Error): void;
}

const isCloseEvent = (value: unknown): value is { code: number; reason: string } =>
  typeof value === 'object' && value !== null && 'code' in value && 'reason' in value;

/**
 * The `cliForwards` subscription, kept open: a drop (API restart, network)
 * is retried by graphql-ws with backoff and said on screen ("connection
 * lost", then "reconnected"); a 4401 (the access token expired) is answered
 * with a refreshed token and a new connection, silently.
 */
export class Tunnel {
  private ws?: Client;
  private connectedOnce = false;
  private dropped = false;
  private closing = false;
  private lastAuthReconnect = 0;

  constructor(
    private readonly client: ApiClient,
    private readonly handlers: TunnelHandlers,
  ) {}

  open(): void {
    const ws = this.client.wsClient({
      connected: () => {
        if (!this.connectedOnce) {
          this.connectedOnce = true;
          this.handlers.onReady();
        } else if (this.dropped) {
          this.dropped = false;
          this.handlers.onNotice('reconnected', 'info');
        }
      },
      closed: (event) => {
        if (this.closing || !this.connectedOnce || this.dropped || event.code === UNAUTHORIZED || event.code === INTERNAL_CLIENT_ERROR) return;
        this.dropped = true;
        this.handlers.onNotice(`connection lost (${event.code}${event.reason ? ` ${event.reason}` : ''}): reconnecting…`, 'warn');
      },
    });
    this.ws = ws;
    ws.subscribe<{ cliForwards: CliForward }>(
      { query: this.handlers.query, variables: this.handlers.variables },
      {
        next: (result) => {
          if (result.errors?.length) this.fail(new CliError(`the API refused the tunnel: ${result.errors[0].message}`));
          else if (result.data) this.handlers.onForward(result.data.cliForwards);
        },
        error: (err) => void this.onError(ws, err),
        complete: () => {
          if (!this.closing) this.fail(new CliError('the API ended the tunnel'));
        },
      },
    );
  }

  private async onError(ws: Client, err: unknown): Promise<void> {
    if (this.closing) return;
    if (isCloseEvent(err) && err.code === UNAUTHORIZED && Date.now() - this.lastAuthReconnect > 10_000) {
      this.lastAuthReconnect = Date.now();
      try {
        await this.client.accessToken({ force: true });
      } catch (refreshErr) {
        return this.fail(refreshErr as Error);
      }
      await ws.dispose();
      return this.open();
    }
    if (isCloseEvent(err) && err.code === INTERNAL_CLIENT_ERROR && this.client.lastConnectionError) return this.fail(this.client.lastConnectionError);
    if (isCloseEvent(err)) return this.fail(new CliError(`the API closed the tunnel: ${err.reason || `code ${err.code}`}`));
    if (Array.isArray(err)) return this.fail(new CliError(`the API refused the tunnel: ${(err[0] as { message?: string })?.message ?? 'unknown error'}`));
    this.fail(err instanceof Error ? err : new CliError(String(err)));
  }

  private fail(err: Error): void {
    if (this.closing) return;
    this.handlers.onFatal(err);
  }

  async close(): Promise<void> {
    this.closing = true;
    await this.ws?.dispose();
  }
}
