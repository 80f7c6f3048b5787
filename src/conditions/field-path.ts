/**
 * Field references shared by filters, typing rules and routing rules:
 * `header.<Name>` (case-insensitive) or `body.<dot.path>` where numeric
 * segments index arrays (`body.commits.0.id`).
 */
export interface ConditionInput {
  /** Request headers with lower-cased names. */
  headers: Record<string, string | undefined>;
  body: unknown;
}

export type FieldRef = { source: 'header'; name: string } | { source: 'body'; path: string[] };

/** What parseFieldRef accepts, as one pattern (input schemas and the OpenAPI document). */
export const FIELD_REF = /^(?:header\.[\s\S]+|body\.[^.]+(?:\.[^.]+)*)$/;

export function parseFieldRef(field: string): FieldRef | null {
  if (field.startsWith('header.') && field.length > 'header.'.length) {
    return { source: 'header', name: field.slice('header.'.length).toLowerCase() };
  }
  if (field.startsWith('body.') && field.length > 'body.'.length) {
    const path = field.slice('body.'.length).split('.');
    return path.every((segment) => segment.length > 0) ? { source: 'body', path } : null;
  }
  return null;
}

/** Follows a dot path into a JSON value; undefined when any step is missing. */
export function getPath(value: unknown, path: readonly string[]): unknown {
  let current = value;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return undefined;
    if (Array.isArray(current)) {
      if (!/^\d+$/.test(segment)) return undefined;
      current = current[Number(segment)];
    } else {
      if (!Object.prototype.hasOwnProperty.call(current, segment)) return undefined;
      current = (current as Record<string, unknown>)[segment];
    }
  }
  return current;
}

export function resolveField(ref: FieldRef, input: ConditionInput): unknown {
  return ref.source === 'header' ? input.headers[ref.name] : getPath(input.body, ref.path);
}

/** How a resolved value is compared as text: strings as-is, scalars via String, objects/arrays as JSON. */
export function valueToText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return JSON.stringify(value);
}
