import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { CliError, apiUnreachable, notLoggedIn, refreshFailed } from './cli-errors';
import type { ConfigStore, StoredConfig } from './config-store';

/** The Session the API answers `login`, `refreshToken` and the OAuth exchange with. */
export interface SessionPayload {
  accessToken: string;
  refreshToken: string;
  expiresIn: number;
  user: { id: string; email: string };
}
export const SESSION_FIELDS = 'accessToken refreshToken expiresIn user { id email }';

/** A GraphQL error the API answered with: its docs/api.md#errors code and HTTP-like status. */
export class ApiError extends CliError {
  constructor(
    message: string,
    readonly code: string,
    readonly status?: number,
    /** The error's `details` (e.g. `{ resource, id }` of a not_found). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

/** Refresh this long before the access token's expiry, so a request never races it. */
export const REFRESH_MARGIN_MS = 30_000;

export function needsRefresh(config: StoredConfig, now = Date.now()): boolean {
  if (!config.access_token_expires_at) return false;
  return Date.parse(config.access_token_expires_at) - now < REFRESH_MARGIN_MS;
}

export function storedSession(apiUrl: string, session: SessionPayload, now = Date.now()): StoredConfig {
  return {
    api_url: apiUrl,
    access_token: session.accessToken,
    refresh_token: session.refreshToken,
    access_token_expires_at: new Date(now + session.expiresIn * 1000).toISOString(),
  };
}

interface GraphQLBody<T> {
  data?: T;
  errors?: Array<{ message: string; extensions?: { code?: string; status?: number; details?: Record<string, unknown> } }>;
}

/**
 * GraphQL over fetch (queries, mutations) and graphql-ws (subscriptions)
 * against one API, with the stored session: the access token is refreshed
 * shortly before it expires and once after a 401; a refused refresh ends in
 * "refresh failed". Only one refresh runs at a time, because the API
 * revokes a refresh token's whole family when one is spent twice.
 */
export class ApiClient {
  private refreshing?: Promise<string>;
  /** Why the last WebSocket connection could not authenticate (graphql-ws only says "internal client error"). */
  lastConnectionError?: Error;

  constructor(
    readonly apiUrl: string,
    private readonly store?: ConfigStore,
    private readonly fetchImpl: typeof fetch = fetch,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {}

  get graphqlUrl(): string {
    return `${this.apiUrl}/graphql`;
  }

  /** A request without credentials (login, refresh, the OAuth exchange). */
  async anonymous<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    return this.unwrap<T>(await this.post<T>(query, variables));
  }

  /** A request as the logged-in user. */
  async request<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
    const first = await this.post<T>(query, variables, await this.accessToken());
    if (!isUnauthenticated(first)) return this.unwrap(first);
    return this.unwrap(await this.post<T>(query, variables, await this.accessToken({ force: true })));
  }

  /** The current access token, refreshed first when it is about to expire (or `force`). */
  async accessToken(opts: { force?: boolean } = {}): Promise<string> {
    const config = this.session();
    if (config.api_key) {
      // A key is not refreshed: refused once is refused.
      if (opts.force) throw new CliError(`the API key ${keyLabel(config.api_key)} was refused (revoked or invalid): create another in the dashboard`, notLoggedIn().exitCode);
      return config.api_key;
    }
    if (!opts.force && !needsRefresh(config)) return config.access_token!;
    this.refreshing ??= this.refresh(config).finally(() => (this.refreshing = undefined));
    return this.refreshing;
  }

  /** When the stored access token expires (ms since the epoch), if known. */
  accessTokenExpiresAt(): number | undefined {
    if (this.session().api_key) return undefined;
    const at = this.store?.read()?.access_token_expires_at;
    return at ? Date.parse(at) : undefined;
  }

  private session(): StoredConfig {
    // RELAY_API_KEY (CI, containers) wins over whatever is stored.
    if (this.env.RELAY_API_KEY) return { api_url: this.apiUrl, api_key: this.env.RELAY_API_KEY };
    const config = this.store?.read();
    if (config?.api_key && config.api_url === this.apiUrl) return config;
    if (!config?.access_token || !config.refresh_token) throw notLoggedIn();
    if (config.api_url !== this.apiUrl) {
      throw new CliError(`not logged in to ${this.apiUrl} (logged in to ${config.api_url}): run \`relay login --api-url ${this.apiUrl}\` first`, notLoggedIn().exitCode);
    }
    return config;
  }

  private async refresh(config: StoredConfig): Promise<string> {
    let session: SessionPayload;
    try {
      ({ refreshToken: session } = await this.anonymous<{ refreshToken: SessionPayload }>(
        `mutation Refresh($t: String!) { refreshToken(refreshToken: $t) { ${SESSION_FIELDS} } }`,
        { t: config.refresh_token },
      ));
    } catch (err) {
      if (err instanceof ApiError) throw refreshFailed();
      throw err;
    }
    this.store!.write(storedSession(this.apiUrl, session));
    return session.accessToken;
  }

  private async post<T>(query: string, variables: Record<string, unknown>, token?: string): Promise<{ status: number; body: GraphQLBody<T> }> {
    let res: Response;
    try {
      res = await this.fetchImpl(this.graphqlUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(30_000),
      });
    } catch (err) {
      throw apiUnreachable(this.graphqlUrl, networkCause(err));
    }
    const text = await res.text();
    try {
      return { status: res.status, body: JSON.parse(text) as GraphQLBody<T> };
    } catch {
      throw apiUnreachable(this.graphqlUrl, `HTTP ${res.status}, not a GraphQL answer`);
    }
  }

  private unwrap<T>({ body }: { status: number; body: GraphQLBody<T> }): T {
    const error = body.errors?.[0];
    if (error) throw new ApiError(error.message, error.extensions?.code ?? 'error', error.extensions?.status, error.extensions?.details);
    return body.data as T;
  }

  /**
   * A graphql-ws client that authenticates each (re)connection with a fresh
   * access token and reconnects with capped exponential backoff after a drop.
   */
  wsClient(on: { connected?: () => void; closed?: (event: { code: number; reason: string }) => void; retrying?: (attempt: number) => void }): Client {
    // A ping without a pong in time means a half-open connection (a laptop that slept, a dead NAT entry): close it, and retry.
    let socket: WebSocket | undefined;
    let pongTimer: NodeJS.Timeout | undefined;
    const outage = { sawDown: false };
    const probe = () => fetch(`${this.apiUrl}/readyz`, { signal: AbortSignal.timeout(2_000) }).then((res) => res.ok, () => false);
    return createClient({
      url: this.graphqlUrl.replace(/^http/, 'ws'),
      webSocketImpl: WebSocket,
      connectionParams: async () => {
        try {
          return { authorization: `Bearer ${await this.accessToken()}` };
        } catch (err) {
          this.lastConnectionError = err as Error;
          throw err;
        }
      },
      lazy: true,
      keepAlive: 10_000,
      retryAttempts: Number.POSITIVE_INFINITY,
      retryWait: (retries) => {
        on.retrying?.(retries + 1);
        return reconnectWait(retries, outage, probe);
      },
      // Every drop (API restart 1012, crash 1006, network, no pong) is retried but a permission refusal (4403);
      // graphql-ws itself gives up on refused auth or protocol errors (4401, 4005 when connectionParams threw,
      // 4400, …). tunnel.ts handles those.
      shouldRetry: (event) => !(isCloseEvent(event) && event.code === WS_FORBIDDEN),
      on: {
        connected: (connected) => {
          socket = connected as WebSocket;
          outage.sawDown = false;
          on.connected?.();
        },
        ping: (received) => {
          if (received) return;
          clearTimeout(pongTimer);
          pongTimer = setTimeout(() => socket?.readyState === WebSocket.OPEN && socket.close(PONG_TIMEOUT_CLOSE, 'no pong from the API'), PONG_TIMEOUT_MS);
        },
        pong: (received) => {
          if (received) clearTimeout(pongTimer);
        },
        closed: (event) => {
          clearTimeout(pongTimer);
          on.closed?.(event as { code: number; reason: string });
        },
      },
    });
  }
}

/** `svc_abcd…`: enough to recognise a key, never the whole of it. */
export const keyLabel = (key: string) => `${key.slice(0, 8)}…`;

export const isCloseEvent = (value: unknown): value is { code: number; reason: string } =>
  typeof value === 'object' && value !== null && 'code' in value && 'reason' in value;

/** The API's close codes for a refused credential and for lost access (src/subscriptions/subscription-access.ts). */
export const WS_UNAUTHORIZED = 4401;
export const WS_FORBIDDEN = 4403;

const PONG_TIMEOUT_MS = 5_000;
/** graphql-ws treats 4408 as retryable. */
const PONG_TIMEOUT_CLOSE = 4408;

/** 0.5 s, 1 s, 2 s, … capped at 10 s, with ±20 % jitter so many CLIs do not reconnect in step. */
export function backoffMs(retries: number, random = Math.random): number {
  const base = Math.min(10_000, 500 * 2 ** retries);
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** How often a disconnected client asks the API's /readyz whether it is back (±20 %). */
export const READY_PROBE_MS = 1_000;

export interface Clock {
  now(): number;
  sleep(ms: number): Promise<void>;
}
const realClock: Clock = { now: () => Date.now(), sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) };

/**
 * The wait before reconnection attempt `retries + 1`: the backoff, cut short as soon as the API, seen down during
 * this outage (`/readyz` refused or not 200), answers `/readyz` with 200 again. So a tunnel is back within about a
 * second of its API being ready, however long the outage (the backoff alone, at its 10 s cap, left it away up to 10 s
 * more); an API that stays up but refuses the socket still gets the whole backoff.
 */
export async function reconnectWait(retries: number, outage: { sawDown: boolean }, probe: () => Promise<boolean>, clock: Clock = realClock, random = Math.random): Promise<void> {
  const deadline = clock.now() + backoffMs(retries, random);
  for (;;) {
    const left = deadline - clock.now();
    if (left <= 0) return;
    await clock.sleep(Math.min(left, Math.round(READY_PROBE_MS * (0.8 + 0.4 * random()))));
    if (clock.now() >= deadline) return;
    if (!(await probe())) outage.sawDown = true;
    else if (outage.sawDown) return;
  }
}

function isUnauthenticated(res: { status: number; body: GraphQLBody<unknown> }): boolean {
  return res.status === 401 || (res.body.errors ?? []).some((e) => e.extensions?.status === 401);
}

export function networkCause(err: unknown): string {
  const cause = (err as { cause?: { code?: string; message?: string } }).cause;
  if (cause?.code) return cause.code;
  if ((err as Error).name === 'TimeoutError') return 'timed out after 30 s';
  return cause?.message ?? (err as Error).message;
}
