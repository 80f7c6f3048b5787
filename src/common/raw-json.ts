import { randomBytes } from 'node:crypto';

/**
 * JSON text kept exactly as it was received and stored (PostgreSQL `json`
 * columns hold the text as sent). `JSON.parse` reads every number as a
 * double, so `12345678901234567890` would come back as `12345678901234567000`;
 * a RawJson carries the text itself, and `stringifyJson` writes it into an
 * answer unchanged (numbers, key order, escapes, whitespace).
 */
export class RawJson {
  constructor(readonly text: string) {}

  /** The parsed value, for code that needs one (routing, transforms, previews). */
  value(): unknown {
    return JSON.parse(this.text);
  }

  /** Serialized by plain `JSON.stringify` (not `stringifyJson`): the parsed value, big numbers rounded. */
  toJSON(): unknown {
    return this.value();
  }
}

/** A RawJson for stored JSON text, or null for a missing one. */
export function rawJsonOrNull(text: string | null | undefined): RawJson | null {
  return text == null ? null : new RawJson(text);
}

// A string no stored JSON text can produce: a NUL character and a per-process nonce. A RawJson is
// written as this mark followed by its text, inside a JSON string; `unmarkRawJson` puts the text in its place.
const MARK = `\u0000raw-json:${randomBytes(8).toString('hex')}:`;
const MARKED = new RegExp(`"${JSON.stringify(MARK).slice(1, -1).replaceAll('\\', '\\\\')}(?:[^"\\\\]|\\\\.)*"`, 'g');

/**
 * A `JSON.stringify` replacer that marks every RawJson with its text (graphql-ws stringifies each
 * message itself and takes a replacer: `jsonMessageReplacer`); `unmarkRawJson` finishes the job.
 */
export function markRawJson(this: unknown, key: string, replaced: unknown): unknown {
  // `replaced` went through toJSON already; the holder still has the RawJson itself.
  const original = (this as Record<string, unknown>)[key];
  return original instanceof RawJson ? MARK + original.text : replaced;
}

/** Text from `JSON.stringify(…, markRawJson)` with every RawJson written as its exact text. */
export function unmarkRawJson(text: string): string {
  return text.replace(MARKED, (literal) => (JSON.parse(literal) as string).slice(MARK.length));
}

/** `JSON.stringify` (compact) that writes every RawJson inside `value` as its exact text. */
export function stringifyJson(value: unknown): string {
  if (value instanceof RawJson) return value.text;
  return unmarkRawJson(JSON.stringify(value ?? null, markRawJson));
}
