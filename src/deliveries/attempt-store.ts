import type { Knex } from '@mikro-orm/postgresql';
import { uuidv7 } from '../common/ids';
import { NOTIFY } from '../common/notify-channels';
import { stringifyJson } from '../common/raw-json';
import type { AttemptStatus, Condition, DeliveryStatus, DestinationType, RetryPolicy, RoutingRule } from '../common/types';
import { issueCause } from '../issues/issue-cause';
import type { SendResult } from '../sending/send-result';
import type { SignatureScheme } from '../sending/signature';

/**
 * The SQL of one delivery attempt: what the attempt activity reads (one
 * query), and the idempotent writes that record an attempt or a cancel.
 * Plain SQL on purpose: this is the delivery hot path.
 */

/** What happened to the attempt, as the workflow needs it. */
export type AttemptOutcome =
  | { kind: 'success' }
  | { kind: 'retrying'; delayMs: number }
  /**
   * The answer asked to wait and is waited out (docs/receiver-signals.md): recorded as a `rate_limited`
   * attempt (`recorded`), so the next attempt takes the next number but counts the same in the retry schedule.
   * Histories written before waited-out answers were recorded carry no `recorded`: the same number is asked again.
   */
  | { kind: 'rate_limited'; delayMs: number; recorded?: boolean }
  /** Not sent: the destination has max_concurrency attempts in flight. Same attempt number after the wait. */
  | { kind: 'throttled'; delayMs: number }
  /** Not sent: the destination's circuit is open (or its probe is in flight). Same attempt number after the wait. */
  | { kind: 'deferred'; delayMs: number }
  /** A `cli` forward is out: the workflow waits (no slot held) for the cliAnswer signal or `waitMs`, then completes it. */
  | { kind: 'awaiting_cli'; forwardId: string; waitMs: number }
  | { kind: 'failed' }
  | { kind: 'skipped' }
  | { kind: 'canceled' }
  /** The delivery row is gone (its event was deleted): nothing left to do. */
  | { kind: 'gone' };

/** What the admission check answered for this attempt (src/deliveries/admission.ts). */
export interface Admission {
  verdict: 'admitted' | 'probe' | 'throttled' | 'deferred';
  /** Deferred: when the circuit lets the next probe through (epoch ms). */
  retryAt: number | null;
}

export interface AdmissionRequest {
  /** RELAY_DESTINATION_MAX_CONCURRENCY, for destinations without their own max_concurrency. */
  defaultLimit: number;
  /** A lease outlives a crashed worker by at most this long. */
  leaseSeconds: number;
}

export interface AttemptContext {
  deliveryId: string;
  /** The attempt this context was loaded for. */
  attemptNumber: number;
  status: DeliveryStatus;
  /** When the delivery was created: its retry schedule's start, which bounds circuit deferrals. */
  createdAt: Date;
  eventId: string;
  endpointId: string;
  endpointSlug: string;
  projectId: string;
  headerPrefix: string;
  eventType: string;
  payload: unknown;
  /** The payload's stored text, exactly as received (sent as is when no transform applies). */
  payloadText: string;
  headers: Record<string, string>;
  receivedAt: Date;
  /** The event is an operational event (its endpoint is the project's system source): its failures emit nothing. */
  system: boolean;
  destination: {
    id: string;
    type: DestinationType;
    webhookUrlEnc: string | null;
    botTokenEnc: string | null;
    guildId: string | null;
    channelId: string | null;
    retryPolicy: RetryPolicy;
    signatureScheme: SignatureScheme;
    signingSecretEnc: string | null;
    previousSigningSecretEnc: string | null;
    previousSecretExpiresAt: Date | null;
    /** Its open or acknowledged issues: only then does a success count towards resolving them (docs/alerts.md#issues). */
    openIssues: number;
    /** A `cli` destination's session options (`destinations.cli_session`: delay, filters), read here so the forward costs no extra query. */
    cliSession: { delayMs?: number; filters?: Condition[] } | null;
  };
  /** Null when the endpoint and destination are no longer linked (a late retry or a replay). */
  link: { templateId: string | null; transformId: string | null; routingRules: RoutingRule[] } | null;
  /** This attempt's record when it already exists (the activity ran before and is retried). */
  storedAttempt: StoredAttempt | null;
  /** Asked only for an attempt still to be made (no stored record, delivery queued or retrying). */
  admission: Admission | null;
}

export interface StoredAttempt {
  status: AttemptStatus;
  next_retry_at: Date | string | null;
}

function parseAdmission(raw: string | null): Admission | null {
  if (!raw) return null;
  const [verdict, retryAt] = raw.split(':');
  return { verdict: verdict as Admission['verdict'], retryAt: retryAt ? Number(retryAt) : null };
}

/**
 * Everything attempt n needs, in one query; null when the delivery no longer
 * exists. With `admit`, the same statement asks relay_admit_attempt for a
 * lease on the destination (max_concurrency, circuit breaker) when the attempt
 * is still to be made: admission costs no extra round trip.
 */
export async function loadAttemptContext(knex: Knex, deliveryId: string, attemptNumber: number, admit?: AdmissionRequest): Promise<AttemptContext | null> {
  const admission = admit
    ? `case when a.status is null and d.status in ('queued', 'retrying') then
         (select verdict || ':' || coalesce((extract(epoch from retry_at) * 1000)::bigint::text, '')
            from relay_admit_attempt(d.destination_id, d.id, ${Math.floor(admit.defaultLimit)}, ${Math.ceil(admit.leaseSeconds)})) end`
    : 'null';
  const { rows } = await knex.raw(
    `select d.id, d.status, d.created_at as delivery_created_at, d.event_id, d.destination_id, d.endpoint_id, d.project_id,
            e.event_type, e.payload, e.payload::text as payload_text, e.headers, e.created_at as received_at,
            ep.slug as endpoint_slug, ep.is_system, p.header_prefix,
            t.type, t.webhook_url_enc, t.bot_token_enc, t.guild_id, t.channel_id, t.retry_policy,
            t.signature_scheme, t.signing_secret_enc, t.previous_signing_secret_enc, t.previous_secret_expires_at, t.cli_session, t.open_issues,
            l.id as link_id, l.template_id, l.transform_id, l.routing_rules,
            a.status as attempt_status, a.next_retry_at as attempt_next_retry_at,
            ${admission} as admission
       from deliveries d
       join events e on e.id = d.event_id
       join destinations t on t.id = d.destination_id
       join webhook_endpoints ep on ep.id = d.endpoint_id
       join projects p on p.id = d.project_id
       left join endpoint_destinations l on l.endpoint_id = d.endpoint_id and l.destination_id = d.destination_id
       left join delivery_attempts a on a.delivery_id = d.id and a.attempt_number = ?
      where d.id = ?`,
    [attemptNumber, deliveryId],
  );
  const r = rows[0];
  if (!r) return null;
  return {
    deliveryId: r.id,
    attemptNumber,
    status: r.status,
    createdAt: new Date(r.delivery_created_at),
    eventId: r.event_id,
    endpointId: r.endpoint_id,
    endpointSlug: r.endpoint_slug,
    projectId: r.project_id,
    headerPrefix: r.header_prefix,
    eventType: r.event_type,
    payload: r.payload,
    payloadText: r.payload_text,
    headers: r.headers ?? {},
    receivedAt: new Date(r.received_at),
    system: r.is_system,
    destination: {
      id: r.destination_id,
      type: r.type,
      webhookUrlEnc: r.webhook_url_enc,
      botTokenEnc: r.bot_token_enc,
      guildId: r.guild_id,
      channelId: r.channel_id,
      retryPolicy: r.retry_policy,
      signatureScheme: r.signature_scheme,
      signingSecretEnc: r.signing_secret_enc,
      previousSigningSecretEnc: r.previous_signing_secret_enc,
      previousSecretExpiresAt: r.previous_secret_expires_at ? new Date(r.previous_secret_expires_at) : null,
      cliSession: r.cli_session ?? null,
      openIssues: r.open_issues,
    },
    link: r.link_id ? { templateId: r.template_id, transformId: r.transform_id, routingRules: r.routing_rules ?? [] } : null,
    storedAttempt: r.attempt_status ? { status: r.attempt_status, next_retry_at: r.attempt_next_retry_at } : null,
    admission: parseAdmission(r.admission),
  };
}

function untilNextRetry(row: StoredAttempt, now: number): number {
  return row.next_retry_at ? Math.max(0, new Date(row.next_retry_at).getTime() - now) : 0;
}

/** The outcome an already-recorded attempt stands for (an activity retried after a crash must not send again). */
export function outcomeOfStoredAttempt(row: StoredAttempt, now: number): AttemptOutcome {
  switch (row.status) {
    case 'retrying':
      return { kind: 'retrying', delayMs: untilNextRetry(row, now) };
    case 'rate_limited':
      return { kind: 'rate_limited', delayMs: untilNextRetry(row, now), recorded: true };
    case 'success':
    case 'failed':
    case 'canceled':
    case 'skipped':
      return { kind: row.status };
    default:
      return { kind: 'retrying', delayMs: 0 };
  }
}

async function findAttempt(knex: Knex, deliveryId: string, attemptNumber: number): Promise<StoredAttempt | null> {
  const { rows } = await knex.raw(
    'select status, next_retry_at from delivery_attempts where delivery_id = ? and attempt_number = ?',
    [deliveryId, attemptNumber],
  );
  return rows[0] ?? null;
}

/** What the attempt tells the destination's circuit breaker (relay_finish_attempt). */
export interface CircuitReport {
  /** true: the destination answered; false: connection error or timeout; null: says nothing about the destination. */
  reachable: boolean | null;
  threshold: number;
  cooldownSeconds: number;
  maxCooldownSeconds: number;
}

export interface RecordAttemptArgs {
  ctx: Pick<AttemptContext, 'deliveryId' | 'eventId' | 'eventType' | 'endpointId' | 'endpointSlug' | 'projectId' | 'system' | 'destination'>;
  attemptNumber: number;
  /**
   * The attempt's id when it was made before it is recorded: a `cli` forward's id, from its hand-off to the CLI.
   * Attempt ids are UUIDv7, so they then order attempts by when they were made, however late the answer came.
   */
  attemptId?: string;
  /**
   * `success`, `retrying` (with `nextRetryAt`), `failed` (dead-lettered), `skipped` (a CLI away or paused), or
   * `rate_limited` (an answer waited out until `nextRetryAt`; the delivery reads `retrying` meanwhile).
   */
  status: 'success' | 'retrying' | 'failed' | 'skipped' | 'rate_limited';
  nextRetryAt: Date | null;
  result: SendResult;
  /** Releases the attempt's lease and updates the circuit, in the same statement. */
  circuit: CircuitReport;
}

export type RecordedOutcome = AttemptOutcome & {
  circuitTransition?: 'opened' | 'reopened' | 'closed' | null;
  /** This attempt's 410 Gone paused the destination (it was active). */
  paused?: boolean;
};

/** A success resolves a destination's open issues once it has had this many in a row (docs/alerts.md#issues). */
export const ISSUE_RESOLVE_AFTER_SUCCESSES = 3;

/**
 * Whether the statement calls relay_attempt_effects: for a failure (its issue, a dead letter), a 410,
 * and a success of a destination with open issues; a circuit transition adds itself in SQL. `cli`
 * destinations (a developer's `relay listen`) have no issues, pause on nothing and emit no
 * operational events: the terminal shows them.
 */
function hasEffects(args: RecordAttemptArgs): { operational: boolean; now: boolean } {
  const operational = args.ctx.destination.type !== 'cli';
  const { status, result } = args;
  const now = status === 'failed' || status === 'retrying' || result.gone === true || (status === 'success' && args.ctx.destination.openIssues > 0);
  return { operational, now: operational && now };
}

/** What relay_attempt_effects needs from the activity (the statement adds the status and the circuit's transition). */
function effectsInput(args: RecordAttemptArgs): string {
  const { ctx, result } = args;
  return JSON.stringify({
    project_id: ctx.projectId,
    event_id: ctx.eventId,
    event_type: ctx.eventType,
    endpoint_id: ctx.endpointId,
    endpoint_slug: ctx.endpointSlug,
    delivery_id: ctx.deliveryId,
    destination_id: ctx.destination.id,
    attempt_number: args.attemptNumber,
    status_code: result.statusCode,
    error: result.error,
    gone: result.gone === true,
    system: ctx.system,
    cause: issueCause(result),
    open_issues: ctx.destination.openIssues,
    resolve_after: ISSUE_RESOLVE_AFTER_SUCCESSES,
  });
}

/**
 * Records attempt n and moves the delivery on, atomically and at most once per
 * (delivery, attempt number), in ONE statement (one round trip on the hot
 * path): lock the delivery, insert the attempt, update the delivery, notify,
 * release the lease and update the circuit (relay_finish_attempt). When there
 * is more to do (a dead letter, a 410 Gone, a circuit opening or closing) the
 * same statement calls relay_attempt_effects, which pauses the destination and
 * writes the operational occurrences (docs/operational-events.md): they are as
 * durable as the attempt, and a retried activity that finds its attempt
 * recorded emits nothing twice. A successful attempt of a healthy destination
 * never calls it. A delivery canceled while the attempt was in flight stays
 * `canceled`, and so does this attempt (its response is still recorded).
 */
export async function recordAttempt(knex: Knex, args: RecordAttemptArgs): Promise<RecordedOutcome> {
  const { ctx, attemptNumber, result, circuit } = args;
  const effects = hasEffects(args);
  const { rows } = await knex.raw(
    `with d as (
       select id, status from deliveries where id = ? for update
     ), ins as (
       insert into delivery_attempts
         (id, delivery_id, event_id, destination_id, attempt_number, status, status_code, response_body,
          response_body_truncated, response_headers, error, latency_ms, next_retry_at, payload_sent)
       select ?, d.id, ?, ?, ?, case when d.status = 'canceled' then 'canceled' else ? end, ?::int, ?,
              ?::boolean, ?::jsonb, ?, ?::int, case when d.status = 'canceled' then null else ?::timestamptz end, ?::json
         from d
       on conflict (delivery_id, attempt_number) do nothing
       returning id, status, next_retry_at
     ), upd as (
       update deliveries
          set status = case when ins.status = 'rate_limited' then 'retrying' else ins.status end,
              attempt_count = greatest(attempt_count, ?), next_retry_at = ins.next_retry_at,
              dead_lettered_at = case when ins.status = 'failed' then now() else dead_lettered_at end,
              completed_at = case when ins.status not in ('retrying', 'rate_limited') then now() else completed_at end,
              updated_at = now()
         from ins
        where deliveries.id = ? and ins.status <> 'canceled'
     )
     select d.id as delivery_id, ins.id as attempt_id, ins.status, ins.next_retry_at,
            case when ins.id is not null then pg_notify(?, ins.id::text) end as notified,
            f.transition as circuit_transition,
            case when ins.id is not null and ?::boolean and (?::boolean or f.transition in ('opened', 'closed')) then
              -- The circuit row read here is the statement's snapshot: as it was before relay_finish_attempt changed it.
              relay_attempt_effects(?::jsonb || jsonb_build_object('status', ins.status, 'transition', f.transition,
                'circuit_before', (select to_jsonb(c) from destination_circuits c where c.destination_id = ?)))
            end as effects
       from d left join ins on true
       left join lateral (select relay_finish_attempt(?, d.id, ?::boolean, ?, ?, ?, ?) as transition where ins.id is not null) f on true`,
    [
      ctx.deliveryId,
      args.attemptId ?? uuidv7(),
      ctx.eventId,
      ctx.destination.id,
      attemptNumber,
      args.status,
      result.statusCode,
      result.responseBody,
      result.responseBodyTruncated,
      result.responseHeaders ? JSON.stringify(result.responseHeaders) : null,
      result.error,
      result.latencyMs === null ? null : Math.round(result.latencyMs),
      args.nextRetryAt,
      stringifyJson(result.payloadSent),
      attemptNumber,
      ctx.deliveryId,
      NOTIFY.attemptsChanged,
      effects.operational,
      effects.now,
      effectsInput(args),
      ctx.destination.id,
      ctx.destination.id,
      circuit.reachable,
      circuit.reachable === false ? result.error : null,
      circuit.threshold,
      circuit.cooldownSeconds,
      circuit.maxCooldownSeconds,
    ],
  );
  const row = rows[0];
  if (!row) return { kind: 'gone' };
  // Already recorded by an earlier run of this activity: answer what it recorded.
  const stored = row.attempt_id ? row : await findAttempt(knex, ctx.deliveryId, attemptNumber);
  return { ...outcomeOfStoredAttempt(stored!, Date.now()), circuitTransition: row.circuit_transition ?? null, paused: row.effects?.paused === true };
}

/**
 * Cancels a queued or retrying delivery (docs/delivery.md#replay-cancel-and-bulk-actions), inside the caller's
 * transaction: the delivery and its last attempt become `canceled`. A delivery
 * canceled before any attempt gets a `canceled` attempt 1, so the attempt list
 * shows what happened. Returns false when the delivery was already finished.
 */
export async function markDeliveryCanceled(trx: Knex, deliveryId: string, reason: string): Promise<boolean> {
  const { rows } = await trx.raw(
    'select status, attempt_count, event_id, destination_id from deliveries where id = ? for update',
    [deliveryId],
  );
  const d = rows[0];
  if (!d || (d.status !== 'queued' && d.status !== 'retrying')) return false;
  await trx.raw(
    `with lease as (delete from destination_leases where delivery_id = ?)
     update deliveries set status = 'canceled', next_retry_at = null, completed_at = now(), updated_at = now() where id = ?`,
    [deliveryId, deliveryId],
  );
  const { rows: changed } = await trx.raw(
    `update delivery_attempts set status = 'canceled', next_retry_at = null, updated_at = now()
      where delivery_id = ? and attempt_number = ? and status in ('retrying', 'rate_limited')
      returning id`,
    [deliveryId, d.attempt_count],
  );
  let attemptId: string | undefined = changed[0]?.id;
  if (!attemptId) {
    const { rows: inserted } = await trx.raw(
      `insert into delivery_attempts (id, delivery_id, event_id, destination_id, attempt_number, status, error, latency_ms)
       values (?, ?, ?, ?, ?, 'canceled', ?, 0)
       on conflict (delivery_id, attempt_number) do nothing
       returning id`,
      [uuidv7(), deliveryId, d.event_id, d.destination_id, d.attempt_count + 1, reason],
    );
    attemptId = inserted[0]?.id;
  }
  if (attemptId) await trx.raw('select pg_notify(?, ?)', [NOTIFY.attemptsChanged, attemptId]);
  return true;
}
