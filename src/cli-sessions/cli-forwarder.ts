import type { Knex } from '@mikro-orm/postgresql';
import type { AppContainer } from '../app/container';
import { uuidv7 } from '../common/ids';
import { NOTIFY } from '../common/notify-channels';
import type { AttemptContext } from '../deliveries/attempt-store';
import { answerToResult, failureToResult } from '../sending/http-client';
import { notSent, type SendResult } from '../sending/send-result';
import { deliveryHeaders } from '../sending/webhook.sender';
import { CLI_STALE_AFTER_MS } from './cli-limits';

/** What the CLI reported for a forward (reportCliForward), as stored in `cli_forwards.result`. */
export interface CliAnswer {
  statusCode: number | null;
  responseHeaders: Record<string, string> | null;
  responseBody: string | null;
  latencyMs: number;
  error: string | null;
  skipped: boolean;
}

export interface CliForwardRequest {
  ctx: AttemptContext;
  /** The payload after the transform; null when no transform applied (the event's original text is forwarded). */
  transformed: { payload: unknown } | null;
  signing: { secret: string; previousSecret?: string | null } | null;
  /** One attempt's time limit; the wait adds the session's delay. */
  timeoutMs: number;
}

export const NO_CLI_CONNECTED = 'no CLI connected: the event is stored but not forwarded';
export const PAUSED_IN_CLI = 'paused in the CLI: not forwarded';

/** Headers that describe one hop (RFC 9110 §7.6.1) or the original request's framing: never forwarded. */
const DROPPED_HEADERS = new Set(['connection', 'keep-alive', 'proxy-authenticate', 'proxy-authorization', 'proxy-connection', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'host', 'content-length']);

/** The event's headers minus hop-by-hop ones, plus the delivery headers a webhook destination gets (they win on a clash). */
export function forwardHeaders(original: Record<string, string>, delivery: Record<string, string>, transformed: boolean): Record<string, string> {
  const ours = new Set(Object.keys(delivery).map((k) => k.toLowerCase()));
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(original)) {
    const lower = name.toLowerCase();
    if (!DROPPED_HEADERS.has(lower) && !ours.has(lower)) headers[lower] = value;
  }
  // A transform's output is JSON whatever the event's content type was.
  if (transformed || !headers['content-type']) headers['content-type'] = 'application/json';
  return { ...headers, ...delivery };
}

/** The CLI's answer as an attempt result: its status, headers, body (first 4096 bytes) and the latency it measured. */
export function cliAnswerToResult(answer: CliAnswer, payloadSent: unknown): SendResult {
  if (answer.skipped) return notSent(payloadSent, PAUSED_IN_CLI, { permanent: true, latencyMs: answer.latencyMs });
  if (answer.statusCode === null) {
    return failureToResult({ error: answer.error ?? 'the local request failed', blocked: false, latencyMs: answer.latencyMs }, payloadSent);
  }
  return answerToResult(
    { statusCode: answer.statusCode, headers: answer.responseHeaders ?? {}, body: Buffer.from(answer.responseBody ?? '', 'utf8'), latencyMs: answer.latencyMs },
    payloadSent,
  );
}

const POLL_MS = 1000;

/**
 * The worker's side of the `listen` tunnel (docs/cli.md "How the tunnel
 * works"): an attempt to a `cli` destination stores one forward per
 * (delivery, attempt) in `cli_forwards`, NOTIFYs the API processes (the one
 * holding the CLI's subscription pushes it), and waits for the CLI's answer:
 * LISTEN on `relay_cli_results` on the process's shared connection, with a
 * poll every second in case a notification is lost. No fresh `cli_sessions`
 * row means no CLI is connected: a permanent failure, nothing is buffered.
 */
export class CliForwarder {
  private readonly waiters = new Map<string, () => void>();
  private listening: Promise<void> | null = null;

  constructor(private readonly deps: Pick<AppContainer, 'orm' | 'notifications'>) {}

  private get knex(): Knex {
    return this.deps.orm.em.getConnection().getKnex();
  }

  async forward(req: CliForwardRequest): Promise<SendResult> {
    const { ctx } = req;
    const payloadSent = req.transformed ? req.transformed.payload : ctx.payload;
    const { rows } = await this.knex.raw(
      `select exists (select 1 from cli_sessions where destination_id = ? and heartbeat_at > now() - make_interval(secs => ?)) as connected,
              coalesce((select (cli_session->>'delayMs')::int from destinations where id = ?), 0) as delay_ms,
              (select payload::text from events where id = ?) as original_body`,
      [ctx.destination.id, CLI_STALE_AFTER_MS / 1000, ctx.destination.id, ctx.eventId],
    );
    const { connected, delay_ms: delayMs, original_body: originalBody } = rows[0];
    if (!connected) return notSent(payloadSent, NO_CLI_CONNECTED, { permanent: true });

    // The exact text a webhook would carry: the event's own bytes (the `json` column keeps them), or the transform's JSON.
    const body = req.transformed ? JSON.stringify(req.transformed.payload ?? null) : (originalBody ?? 'null');
    const delivery = deliveryHeaders({ headerPrefix: ctx.headerPrefix, eventId: ctx.eventId, endpointId: ctx.endpointId, deliveryId: ctx.deliveryId, signing: req.signing }, body);
    const headers = forwardHeaders(ctx.headers, delivery, req.transformed !== null);

    await this.ensureListening();
    const waitMs = req.timeoutMs + delayMs;
    // A retried activity (worker crash mid-wait) finds its forward again; an answer that already came is used.
    // The API processes are told in the same statement (the NOTIFY goes out at its commit): one round trip, not two.
    const id = uuidv7();
    const store = () =>
      this.knex
        .raw(
          `with stored as (
             insert into cli_forwards (id, delivery_id, attempt_number, destination_id, project_id, event_id, headers, body, delay_ms)
             values (?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?)
             on conflict (delivery_id, attempt_number) do update set delay_ms = excluded.delay_ms
             returning id, result)
           select id, result, case when result is null then pg_notify(?, ?::text || ' ' || id::text) end as told from stored`,
          [id, ctx.deliveryId, ctx.attemptNumber, ctx.destination.id, ctx.projectId, ctx.eventId, JSON.stringify(headers), body, delayMs, NOTIFY.cliForwards, ctx.destination.id],
        )
        .then(({ rows }: { rows: Array<{ id: string; result: CliAnswer | null }> }) => rows[0]);
    const answer = await this.awaitAnswer(id, store, waitMs);
    if (!answer) return notSent(payloadSent, `the CLI did not answer within ${waitMs} ms`, { latencyMs: waitMs });
    return cliAnswerToResult(answer, payloadSent);
  }

  /**
   * Stores the forward (telling the API processes) and waits for its answer;
   * the forward row is removed either way (a late answer finds nothing).
   */
  private awaitAnswer(id: string, store: () => Promise<{ id: string; result: CliAnswer | null }>, waitMs: number): Promise<CliAnswer | null> {
    return new Promise((resolve, reject) => {
      let forwardId = id;
      let settled = false;
      let poll: NodeJS.Timeout | undefined;
      let deadline: NodeJS.Timeout | undefined;
      const finish = (answer: CliAnswer | null, err?: unknown) => {
        if (settled) return;
        settled = true;
        clearInterval(poll);
        clearTimeout(deadline);
        this.waiters.delete(forwardId);
        if (err) reject(err);
        else resolve(answer);
      };
      // One read at a time, so that the last one (at the deadline) sees what an earlier one took.
      let reads = Promise.resolve();
      const take = (always: boolean) => {
        reads = reads
          .then(() => this.knex.raw(`delete from cli_forwards where id = ?${always ? '' : ' and result is not null'} returning result`, [forwardId]))
          .then(({ rows }) => {
            if (rows[0] || always) finish(rows[0]?.result ?? null);
          })
          .catch((err) => finish(null, err));
      };
      const check = () => {
        if (!settled) take(false);
      };
      // Set before the NOTIFY can go out, so that no answer comes before its waiter.
      this.waiters.set(id, check);
      store()
        .then((stored) => {
          if (settled) return;
          poll = setInterval(check, POLL_MS);
          deadline = setTimeout(() => take(true), waitMs);
          if (stored.id === id) return;
          // A retried activity: its forward was stored before, maybe answered already (the answer is used), maybe just now.
          this.waiters.delete(id);
          forwardId = stored.id;
          this.waiters.set(forwardId, check);
          if (stored.result) take(true);
          else check();
        })
        .catch((err) => finish(null, err));
    });
  }

  private ensureListening(): Promise<void> {
    this.listening ??= this.deps.notifications
      .listen({
        channel: NOTIFY.cliResults,
        onNotify: (forwardId) => this.waiters.get(forwardId)?.(),
        // Answers may have come while the connection was down.
        onConnect: () => {
          for (const check of this.waiters.values()) check();
        },
      })
      .then(() => undefined);
    return this.listening;
  }
}
