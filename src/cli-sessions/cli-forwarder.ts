import type { Knex } from '@mikro-orm/postgresql';
import type { AppContainer } from '../app/container';
import { uuidv7 } from '../common/ids';
import { NOTIFY } from '../common/notify-channels';
import type { AttemptContext } from '../deliveries/attempt-store';
import { answerToResult, failureToResult } from '../sending/http-client';
import { notSent, type SendResult } from '../sending/send-result';
import { deliveryHeaders, type OutboundSigning } from '../sending/webhook.sender';
import { evaluateConditions } from '../conditions/conditions';
import { CLI_STALE_AFTER_MS, FILTERED_BY_SESSION } from './cli-limits';
import { forwardNotice } from './cli-forward-notice';
import { CliTunnel, type CliForwardView } from './cli-tunnel';

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
  signing: OutboundSigning | null;
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
  if (answer.skipped) return notSent(payloadSent, PAUSED_IN_CLI, { skipped: true });
  if (answer.statusCode === null) {
    // The CLI answered: the tunnel works, so this says nothing to the circuit breaker (it is the local server's failure).
    return { ...failureToResult({ error: answer.error ?? 'the local request failed', blocked: false, latencyMs: answer.latencyMs }, payloadSent), unreachable: false };
  }
  return answerToResult(
    { statusCode: answer.statusCode, headers: answer.responseHeaders ?? {}, body: Buffer.from(answer.responseBody ?? '', 'utf8'), latencyMs: answer.latencyMs },
    payloadSent,
  );
}

/** A forward handed to the tunnel: the workflow waits for its answer (signal `cliAnswer`) or `waitMs`, holding no worker slot. */
export interface CliForwardOut {
  forwardId: string;
  waitMs: number;
}

/**
 * The worker's side of the `listen` tunnel (docs/cli.md "How the tunnel
 * works"). An attempt to a `cli` destination does not wait for the CLI: `begin`
 * stores one forward per (delivery, attempt) in `cli_forwards` and NOTIFYs the
 * API processes in the same statement (the one holding the CLI's subscription
 * pushes it), and the activity returns. The CLI's answer reaches the workflow
 * as the `cliAnswer` signal (sent by reportCliForward), raced against a durable
 * timer; then `collect` takes the answer (or records the timeout). No fresh
 * `cli_sessions` row means no CLI is connected, and an event that does not
 * match the session's `--filter`s is not forwarded: either way the delivery is `skipped`.
 */
export class CliForwarder {
  constructor(private readonly deps: Pick<AppContainer, 'orm'>) {}

  private get knex(): Knex {
    return this.deps.orm.em.getConnection().getKnex();
  }

  /** Stores and announces the forward; a SendResult instead when nothing can be forwarded (filtered out, no CLI connected). */
  async begin(req: CliForwardRequest): Promise<CliForwardOut | SendResult> {
    const { ctx } = req;
    const payloadSent = req.transformed ? req.transformed.payload : ctx.payload;
    // The session's options came with the attempt's context (one query for both).
    const filters = ctx.destination.cliSession?.filters;
    const delayMs = ctx.destination.cliSession?.delayMs ?? 0;
    // `--filter`: over the event as received (as an endpoint's filter groups are), before anything is forwarded.
    if (filters && !evaluateConditions(filters, 'AND', { headers: ctx.headers, body: ctx.payload })) {
      return notSent(payloadSent, FILTERED_BY_SESSION, { skipped: true });
    }

    // The exact text a webhook would carry: the event's own bytes (the `json` column keeps them), or the transform's JSON.
    const body = req.transformed ? JSON.stringify(req.transformed.payload ?? null) : ctx.payloadText;
    const delivery = deliveryHeaders({ headerPrefix: ctx.headerPrefix, eventId: ctx.eventId, endpointId: ctx.endpointId, deliveryId: ctx.deliveryId, signing: req.signing }, body);
    const headers = forwardHeaders(ctx.headers, delivery, req.transformed !== null);
    const id = uuidv7();
    const forward: CliForwardView = {
      id,
      eventId: ctx.eventId,
      deliveryId: ctx.deliveryId,
      attemptNumber: ctx.attemptNumber,
      eventType: ctx.eventType,
      sourceSlug: ctx.endpointSlug,
      receivedAt: ctx.receivedAt.toISOString(),
      method: 'POST',
      headers,
      body,
      delayMs,
    };
    const notice = forwardNotice(ctx.destination.id, forward);
    // ONE statement, one round trip: stored only while a CLI is connected (a fresh presence row; none: no row comes
    // back), and the API processes told at its commit. A fresh forward's notice carries it whole (the API pushes it
    // without reading it back); a retried activity (worker crash) finds its forward again (the CLI may have answered
    // it already: collect uses that) and announces it by id.
    const { rows } = await this.knex.raw(
      `with live as (
         select 1 from cli_sessions where destination_id = ? and heartbeat_at > now() - make_interval(secs => ?) limit 1
       ), stored as (
         insert into cli_forwards (id, delivery_id, attempt_number, destination_id, project_id, event_id, headers, body, delay_ms)
         select ?::uuid, ?::uuid, ?::int, ?::uuid, ?::uuid, ?::uuid, ?::jsonb, ?::text, ?::int from live
         on conflict (delivery_id, attempt_number) do update set delay_ms = excluded.delay_ms
         returning id, result)
       select id, case when result is null then pg_notify(?, case when id = ?::uuid and ?::text is not null then ?::text else ?::text || ' ' || id::text end) end as told
         from stored`,
      [
        ...[ctx.destination.id, CLI_STALE_AFTER_MS / 1000],
        ...[id, ctx.deliveryId, ctx.attemptNumber, ctx.destination.id, ctx.projectId, ctx.eventId, JSON.stringify(headers), body, delayMs],
        ...[NOTIFY.cliForwards, id, notice, notice, ctx.destination.id],
      ],
    );
    if (rows.length === 0) return notSent(payloadSent, NO_CLI_CONNECTED, { skipped: true });
    // Committed: when this process also holds the CLI's subscription, it pushes the fresh forward itself at once.
    if (rows[0].id === id) CliTunnel.existing(this.deps)?.handOff(ctx.destination.id, forward);
    return { forwardId: rows[0].id, waitMs: req.timeoutMs + delayMs };
  }

  /**
   * Takes the forward's answer and removes the forward (a late answer then finds
   * nothing); no answer means the CLI did not answer within `waitMs`. Null when
   * the forward is gone (an earlier run of this step took it: the attempt is recorded).
   */
  async collect(forwardId: string, waitMs: number): Promise<SendResult | null> {
    const { rows } = await this.knex.raw('delete from cli_forwards where id = ? returning result, body', [forwardId]);
    const row = rows[0] as { result: CliAnswer | null; body: string } | undefined;
    if (!row) return null;
    const payloadSent = parseJson(row.body);
    // No latency: the wait was for the CLI (away, or reconnecting), not for the local server's answer.
    if (!row.result) return notSent(payloadSent, `the CLI did not answer within ${waitMs} ms`, { unreachable: true });
    return cliAnswerToResult(row.result, payloadSent);
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
