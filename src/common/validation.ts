import { type ZodType, z } from 'zod';
import { ValidationError } from './errors';

/**
 * Validates input against a service's zod schema; the one place where bad
 * input becomes a 400 with field-level details, for REST and GraphQL alike.
 */
export function parseInput<T>(schema: ZodType<T>, value: unknown, where = 'body'): T {
  assertNoNulCharacters(value, where);
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const fields = result.error.issues.map((issue) => ({ field: issue.path.join('.') || where, message: issue.message }));
  const first = fields[0];
  throw new ValidationError(`Invalid ${where}: ${first.field}: ${first.message}`, { in: where, fields });
}

/** camelCase keys (GraphQL inputs) to the snake_case of the REST wire format, shallowly. */
export function snakeKeys(input: object): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(input)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`), value]),
  );
}

const NUL_MESSAGE = 'must not contain the NUL character (\\u0000)';

/** The path (`a.b.0`) of the first string inside `value` (keys included) that holds a NUL character. */
function findNulCharacter(value: unknown, path: string[] = []): string[] | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findNulCharacter(value[i], [...path, String(i)]);
      if (found) return found;
    }
  } else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      const found = key.includes('\0') ? [...path, key] : findNulCharacter(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * PostgreSQL text cannot hold NUL, so any text input holding one is refused
 * with a 400 naming the field, before any schema or service sees it. Called
 * for every REST input (through parseInput) and every GraphQL argument
 * (src/graphql/schema.ts).
 */
export function assertNoNulCharacters(value: unknown, where = 'body'): void {
  const path = findNulCharacter(value);
  if (!path) return;
  const field = path.join('.') || where;
  throw new ValidationError(`Invalid ${where}: ${field}: ${NUL_MESSAGE}`, { in: where, fields: [{ field, message: NUL_MESSAGE }] });
}

/**
 * JSON Schema (for a zod schema's `.meta()`, which the OpenAPI document
 * carries) of the cross-field rules a service checks in code, so the contract
 * states them: a field present (`present`), present and not null (`given`),
 * at most one of two, exactly one, both or neither.
 */
type Presence = Record<string, unknown>;
export const present = (field: string): Presence => ({ required: [field] });
export const given = (field: string): Presence => ({ required: [field], properties: { [field]: { not: { type: 'null' } } } });
export const atMostOne = (a: Presence, b: Presence) => ({ not: { allOf: [a, b] } });
export const exactlyOne = (a: Presence, b: Presence) => ({ oneOf: [a, b] });
export const bothOrNeither = (a: string, b: string) => ({ dependentRequired: { [a]: [b], [b]: [a] } });

/** A field an update cannot send (`message` says how to change it instead), documented as never allowed (`not: {}`). */
export const notAllowed = (message: string) => z.undefined({ message }).optional().meta({ not: {} });
