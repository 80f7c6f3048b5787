import { randomBytes } from 'node:crypto';

/**
 * UUID version 7: time-ordered, so primary-key indexes stay append-mostly and
 * `id` doubles as a stable cursor for pagination (newest first = id descending).
 */
export function uuidv7(now: number = Date.now()): string {
  const bytes = randomBytes(16);
  bytes.writeUIntBE(now, 0, 6);
  bytes[6] = (bytes[6] & 0x0f) | 0x70;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = bytes.toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
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
