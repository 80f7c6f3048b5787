import { STORED_BODY_LIMIT_BYTES } from './limits';

/**
 * The first `limit` bytes of `body` as text, never splitting a multi-byte
 * character. NUL characters become U+FFFD because PostgreSQL text cannot hold them.
 */
export function truncateUtf8(body: Buffer, limit = STORED_BODY_LIMIT_BYTES): { text: string; truncated: boolean } {
  let end = body.length;
  if (end > limit) {
    end = limit;
    // Step back over continuation bytes (10xxxxxx) to the start of the character that was cut.
    while (end > 0 && (body[end] & 0xc0) === 0x80) end--;
  }
  return { text: body.subarray(0, end).toString('utf8').replaceAll('\u0000', '\uFFFD'), truncated: body.length > limit };
}
