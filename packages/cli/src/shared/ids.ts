import { randomUUID } from 'node:crypto';

/**
 * UUID version 7: time-ordered, so primary-key indexes stay append-mostly and
 * `id` doubles as a stable cursor for pagination (newest first = id descending).
 * Built on randomUUID() (whose random bits come from a cached entropy pool,
 * several times cheaper per id than randomBytes on the ingress hot path): the
 * 48-bit millisecond timestamp replaces the first 12 hex digits, and the
 * version nibble becomes 7; the variant bits are already RFC 4122's.
 */
export function uuidv7(now: number = Date.now()): string {
  const random = randomUUID();
  const ts = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0').slice(-12);
  return `${ts.slice(0, 8)}-${ts.slice(8, 12)}-7${random.slice(15)}`;
}

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && UUID_RE.test(value);
}

/** The smallest UUIDv7 of a millisecond: ids made at or after `ms` sort at or above it (time-range bounds on `id`). */
export function uuidv7LowerBound(ms: number): string {
  const hex = Math.max(0, Math.floor(ms)).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/** The millisecond a UUIDv7 was made. */
export function uuidv7Millis(id: string): number {
  return parseInt(id.slice(0, 8) + id.slice(9, 13), 16);
}
