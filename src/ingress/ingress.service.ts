import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import { Pool } from 'pg';
import type { AppContainer } from '../app/container';
import { ConflictError, NotFoundError, PayloadTooLargeError, ValidationError } from '../common/errors';
import { uuidv7 } from '../common/ids';
import { hashToken } from '../common/secret-box';
import type { ConditionInput } from '../conditions/field-path';
import { ingressEventsStored } from '../metrics/metrics';
import { authenticate, type Headers } from './auth';
import { NOTIFY } from '../common/notify-channels';
import { activeSecrets, EndpointCache, type IngressEndpoint } from './endpoint-cache';
import { extractEventType } from './event-type';
import { GroupCommitWriter } from './event-writer';
import { passesFilters } from './filters';
import { deriveIdempotencyKey } from './idempotency';
import { IngressRateLimiter } from './rate-limiter';
import { assertJsonContentType, parseJsonBody, readRawBody } from '../http/json-body';
import { pgClientConfig } from '../db/pg-connection';

export interface IngressRequest {
  slug: string;
  req: IncomingMessage;
  sourceIp: string | null;
}

export interface BufferedIngressRequest {
  slug: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
  sourceIp: string | null;
}

interface ReadHeaders {
  headers: Headers;
  stored: string;
}

/** Credentials are not kept in the stored copy of the headers. */
const REDACTED_HEADERS = new Set(['authorization', 'x-codehostb-token', 'cookie']);

/** Header values as single strings (repeated headers joined), and the JSON text to store, in one pass. */
function readHeaders(raw: IncomingHttpHeaders): ReadHeaders {
  const headers: Headers = {};
  const stored: Headers = {};
  for (const name in raw) {
    const value = raw[name];
    const text = Array.isArray(value) ? value.join(', ') : value;
    headers[name] = text;
    stored[name] = REDACTED_HEADERS.has(name) ? '[redacted]' : text;
  }
  return { headers, stored: JSON.stringify(stored) };
}

/**
 * `POST /hooks/:slug`, top to bottom: endpoint → raw body → authenticate →
 * parse → event type → idempotency key → rate cap → filters → durable store
 * (group commit) → hand-off (NOTIFY in the same commit; the outbox dispatcher
 * creates deliveries, so nothing here waits on delivery or Temporal).
 */
export class Ingress {
  constructor(
    private readonly cache: EndpointCache,
    private readonly limiter: IngressRateLimiter,
    private readonly writer: GroupCommitWriter,
    private readonly maxBodyBytes: number,
  ) {}

  async receive({ slug, req, sourceIp }: IngressRequest): Promise<{ event_id: string }> {
    const { endpoint, headers } = await this.accept(slug, req.headers);
    return this.store(endpoint, headers, await readRawBody(req, this.maxBodyBytes), sourceIp);
  }

  /**
   * A request whose body is already in memory, through the same steps as `receive`
   * (authentication included): the endpoint Test button (src/endpoints/endpoint-test.service.ts).
   */
  async receiveBuffered({ slug, headers, raw, sourceIp }: BufferedIngressRequest): Promise<{ event_id: string }> {
    const accepted = await this.accept(slug, headers);
    if (raw.length > this.maxBodyBytes) throw new PayloadTooLargeError(this.maxBodyBytes);
    return this.store(accepted.endpoint, accepted.headers, raw, sourceIp);
  }

  /** What is checked before any body is read: an active endpoint, and a JSON content type. */
  private async accept(slug: string, raw: IncomingHttpHeaders): Promise<{ endpoint: IngressEndpoint; headers: ReadHeaders }> {
    const endpoint = await this.cache.get(slug);
    if (!endpoint || !endpoint.isActive) throw new NotFoundError('Endpoint', slug);
    const headers = readHeaders(raw);
    assertJsonContentType(headers.headers['content-type']);
    return { endpoint, headers };
  }

  private async store(endpoint: IngressEndpoint, { headers, stored }: ReadHeaders, raw: Buffer, sourceIp: string | null): Promise<{ event_id: string }> {
    await authenticate(
      { provider: endpoint.provider, projectId: endpoint.projectId, secrets: activeSecrets(endpoint) },
      headers,
      raw,
      (key) => this.cache.apiKeyProject(hashToken(key)),
    );
    const body = parseJsonBody(raw);
    const input: ConditionInput = { headers, body: body.value };
    const eventType = extractEventType(endpoint, input);
    // A string from the payload may hold \u0000, which the event's text column cannot (the payload's json column can).
    if (eventType.includes('\u0000')) {
      throw new ValidationError('The event type taken from this request contains a NUL character (\\u0000), which cannot be stored.', { field: 'event_type' }, 'invalid_event_type');
    }
    const idempotencyKey = deriveIdempotencyKey(endpoint.provider, headers, body.value);
    await this.limiter.admit(endpoint);
    const status = passesFilters(endpoint.filterGroups, input) ? 'received' : 'filtered';

    const result = await this.writer.write({
      id: uuidv7(),
      endpointId: endpoint.id,
      projectId: endpoint.projectId,
      organizationId: endpoint.organizationId,
      eventType,
      payload: body.text,
      headers: stored,
      sourceIp,
      idempotencyKey,
      status,
    });
    if (result.outcome === 'duplicate') {
      throw new ConflictError(
        `An event with idempotency key "${idempotencyKey}" was already received by this endpoint.`,
        { event_id: result.id, idempotency_key: idempotencyKey },
        'duplicate_event',
      );
    }
    ingressEventsStored.inc({ status });
    return { event_id: result.id };
  }
}

const shared = new WeakMap<AppContainer, { ingress: Ingress; ready: Promise<void> }>();

/** The process's one ingress pipeline (one pool, one cache), for `POST /hooks/:slug` and the endpoint Test button. */
export function ingressFor(container: AppContainer): { ingress: Ingress; ready: Promise<void> } {
  let found = shared.get(container);
  if (!found) {
    found = createIngress(container);
    shared.set(container, found);
  }
  return found;
}

/** Builds ingress on its own small pg pool (the hot path skips the ORM) and registers its shutdown. */
function createIngress(container: AppContainer): { ingress: Ingress; ready: Promise<void> } {
  const { config, log } = container;
  const pool = new Pool({ ...pgClientConfig(config.DATABASE_URL!), max: 10 });
  pool.on('error', (err) => log.warn({ err }, 'ingress pool connection error'));
  const cache = new EndpointCache(pool, container.secrets);
  const limiter = new IngressRateLimiter(pool, log);
  const writer = new GroupCommitWriter(pool, log);
  // Changes committed by any process drop cached entries; after a reconnection (changes may have been missed) all of them.
  const listening = container.notifications.listen({
    channel: NOTIFY.endpointsChanged,
    onNotify: (payload) => cache.invalidate(payload),
    onConnect: () => cache.clear(),
  });
  container.onClose('ingress', async () => {
    (await listening)();
    cache.close();
    await limiter.close();
    await pool.end();
  });
  return { ingress: new Ingress(cache, limiter, writer, config.RELAY_MAX_BODY_BYTES), ready: listening.then(() => undefined) };
}
