import type { Pool } from 'pg';
import { ValidationError } from '../common/errors';
import type { Logger } from '../common/logger';
import { NOTIFY } from '../common/notify-channels';
import type { EventStatus } from '../common/types';
import { ingressBatchSize, ingressCommitSeconds } from '../metrics/metrics';

export interface EventRow {
  id: string;
  endpointId: string;
  projectId: string;
  organizationId: string;
  eventType: string;
  /** The body's JSON text, stored as sent. */
  payload: string;
  /** JSON text of the stored headers. */
  headers: string;
  sourceIp: string | null;
  idempotencyKey: string | null;
  status: EventStatus;
}

/** `stored`: committed under `id`; `duplicate`: the key was already used, by event `id`. */
export type WriteResult = { outcome: 'stored'; id: string } | { outcome: 'duplicate'; id: string };

/**
 * One statement, its own transaction (autocommit): rows inserted, duplicates
 * of (endpoint_id, idempotency_key) skipped by the unique index — also
 * against each other inside the batch, where the first one wins — and
 * `pg_notify` sent at COMMIT when a `received` row went in (the outbox
 * dispatcher's wake-up; src/common/notify-channels.ts).
 */
const INSERT_SQL = `
  with ins as (
    insert into events (id, endpoint_id, project_id, organization_id, event_type, payload, headers, source_ip, idempotency_key, status)
    select * from unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::uuid[], $5::text[], $6::json[], $7::json[], $8::text[], $9::text[], $10::text[])
    on conflict (endpoint_id, idempotency_key) do nothing
    returning id, status
  ), woke as (
    select pg_notify('${NOTIFY.eventsCommitted}', '') from ins where status = 'received' limit 1
  )
  select id from ins union all select null from woke`;

const EXISTING_SQL = `
  select e.id, e.endpoint_id, e.idempotency_key
    from events e
    join unnest($1::uuid[], $2::text[]) as k(endpoint_id, idempotency_key)
      on e.endpoint_id = k.endpoint_id and e.idempotency_key = k.idempotency_key`;

interface Pending {
  row: EventRow;
  resolve(result: WriteResult): void;
  reject(err: unknown): void;
  /** Times its original vanished between the conflict and the look-up (retention); retried. */
  retries: number;
}

export interface GroupCommitOptions {
  /** Rows per INSERT at most. */
  maxBatch?: number;
  /** Concurrent commits (connections) at most. */
  maxInFlight?: number;
  /** How long a first row may wait for company when a connection is free (0: next event-loop turn). */
  lingerMs?: number;
}

/**
 * Group commit: requests enqueue their row; whenever a commit slot is free,
 * everything queued so far goes in one INSERT, and each request is answered
 * only after the COMMIT that holds its row. Under load, rows pile up while the
 * slots are busy, so batches grow with the rate and the number of commits per
 * second stays bounded.
 */
export class GroupCommitWriter {
  private queue: Pending[] = [];
  private inFlight = 0;
  private scheduled = false;
  private readonly maxBatch: number;
  private readonly maxInFlight: number;
  private readonly lingerMs: number;

  constructor(
    private readonly pool: Pool,
    private readonly log: Logger,
    opts: GroupCommitOptions = {},
  ) {
    this.maxBatch = opts.maxBatch ?? 500;
    this.maxInFlight = opts.maxInFlight ?? 2;
    this.lingerMs = opts.lingerMs ?? 0;
  }

  write(row: EventRow): Promise<WriteResult> {
    return new Promise((resolve, reject) => {
      this.queue.push({ row, resolve, reject, retries: 0 });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    this.scheduled = true;
    const run = () => {
      this.scheduled = false;
      this.flush();
    };
    if (this.lingerMs > 0 && this.queue.length < this.maxBatch) setTimeout(run, this.lingerMs);
    else setImmediate(run);
  }

  private flush(): void {
    if (this.inFlight >= this.maxInFlight || this.queue.length === 0) return;
    const batch = this.queue.splice(0, this.maxBatch);
    this.inFlight++;
    this.commit(batch)
      .catch((err) => this.recover(batch, err))
      .finally(() => {
        this.inFlight--;
        this.schedule();
      });
    // More than one batch queued: use the other free slots at once.
    this.schedule();
  }

  private async commit(batch: Pending[]): Promise<void> {
    const stop = ingressCommitSeconds.startTimer();
    const cols: unknown[][] = Array.from({ length: 10 }, () => new Array(batch.length));
    batch.forEach(({ row }, i) => {
      cols[0][i] = row.id;
      cols[1][i] = row.endpointId;
      cols[2][i] = row.projectId;
      cols[3][i] = row.organizationId;
      cols[4][i] = row.eventType;
      cols[5][i] = row.payload;
      cols[6][i] = row.headers;
      cols[7][i] = row.sourceIp;
      cols[8][i] = row.idempotencyKey;
      cols[9][i] = row.status;
    });
    const { rows } = await this.pool.query<{ id: string | null }>({ name: 'ingress_insert_events', text: INSERT_SQL, values: cols });
    stop();
    ingressBatchSize.observe(batch.length);
    const inserted = new Set(rows.map((r) => r.id));
    const conflicted = batch.filter((p) => !inserted.has(p.row.id));
    for (const p of batch) if (inserted.has(p.row.id)) p.resolve({ outcome: 'stored', id: p.row.id });
    if (conflicted.length > 0) await this.resolveDuplicates(conflicted);
  }

  /** Rows skipped by ON CONFLICT: answer with the id of the event that holds the key (committed by now). */
  private async resolveDuplicates(conflicted: Pending[]): Promise<void> {
    const { rows } = await this.pool.query<{ id: string; endpoint_id: string; idempotency_key: string }>({
      name: 'ingress_existing_events',
      text: EXISTING_SQL,
      values: [conflicted.map((p) => p.row.endpointId), conflicted.map((p) => p.row.idempotencyKey)],
    });
    const byKey = new Map(rows.map((r) => [`${r.endpoint_id}\n${r.idempotency_key}`, r.id]));
    for (const p of conflicted) {
      const original = byKey.get(`${p.row.endpointId}\n${p.row.idempotencyKey}`);
      if (original) p.resolve({ outcome: 'duplicate', id: original });
      else if (p.retries++ < 3) this.requeue(p);
      else p.reject(new Error('idempotency conflict could not be resolved'));
    }
  }

  /** A failed batch is retried row by row, so one bad row fails only its own request. */
  private async recover(batch: Pending[], err: unknown): Promise<void> {
    if (batch.length === 1) {
      const [p] = batch;
      const code = (err as { code?: string }).code ?? '';
      // Class 22 = data exception, class 54 = too complex (e.g. JSON nested past PostgreSQL's stack limit): the sender's.
      if (code.startsWith('22') || code.startsWith('54')) p.reject(new ValidationError('The event store refused the request body as JSON it cannot store (invalid, or nested too deeply).', { reason: (err as Error).message }, 'malformed_json'));
      else p.reject(err);
      return;
    }
    this.log.warn({ err, rows: batch.length }, 'group commit failed; retrying its rows one by one');
    await Promise.all(batch.map((p) => this.commit([p]).catch((e) => this.recover([p], e))));
  }

  private requeue(p: Pending): void {
    this.queue.push(p);
    this.schedule();
  }
}
