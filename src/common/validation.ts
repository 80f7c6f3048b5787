import { type ZodType, z } from 'zod';
import { ValidationError } from './errors';

/** Of a REST body: a field it may carry beyond its schema (`project_id`, the project hint), and the fields its answer has. */
export interface BodyFields {
  hint?: string;
  answered?: string[];
}

/**
 * Validates input against a service's zod schema; the one place where bad
 * input becomes a 400 with field-level details, for REST and GraphQL alike.
 * A REST body and a GraphQL input object take only the fields their schema
 * defines: any other (misspelled, or read-only such as `id`, `created_at`, a
 * destination's `circuit`) is a 400 naming it rather than dropped unseen.
 */
export function parseInput<T>(schema: ZodType<T>, value: unknown, where = 'body', body: BodyFields = {}): T {
  assertNoNulCharacters(value, where);
  const result = schema.safeParse(value);
  const fields = result.success
    ? where === 'body' || where === 'input'
      ? unknownFields(schema, value)
          .filter((field) => field !== body.hint)
          .map((field) => ({ field, message: body.answered?.includes(field) ? READ_ONLY_MESSAGE : UNKNOWN_MESSAGE }))
      : []
    : result.error.issues.map((issue) => ({ field: issue.path.join('.') || where, message: issue.message }));
  if (result.success && fields.length === 0) return result.data;
  const first = fields[0];
  throw new ValidationError(`Invalid ${where}: ${first.field}: ${first.message}`, { in: where, fields });
}

const READ_ONLY_MESSAGE = 'is read-only: the service sets it, a request cannot';
const UNKNOWN_MESSAGE = 'is not a field of this request (read-only, or misspelled)';

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

/** What `unknownFields` reads of a zod schema's definition (zod's `_zod.def`, its public surface for tools that walk schemas). */
interface SchemaDef {
  type: string;
  shape?: Record<string, ZodType>;
  catchall?: ZodType;
  innerType?: ZodType;
  in?: ZodType;
  element?: ZodType;
  valueType?: ZodType;
  options?: ZodType[];
}

const defOf = (schema: ZodType) => (schema as unknown as { _zod: { def: SchemaDef } })._zod.def;
const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * The paths (`a.b.0.c`) of the keys in `value` that `schema` does not define: a zod object drops
 * them silently, so a field sent by mistake (misspelled, or one the service sets, such as `id`)
 * would otherwise be ignored without a word. Records and objects with a catch-all accept any key;
 * a union accepts the keys of an option that the value matches (other kinds of schema: none
 * checked). Walks a value the schema has
 * accepted, so its depth is bounded by the schema's.
 */
function unknownFields(schema: ZodType, value: unknown, path: string[] = []): string[] {
  const def = defOf(schema);
  const within = (inner: ZodType, item: unknown, key: string) => unknownFields(inner, item, [...path, key]);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'prefault':
    case 'nonoptional':
    case 'readonly':
      return unknownFields(def.innerType!, value, path);
    case 'pipe':
      return unknownFields(def.in!, value, path);
    case 'array':
      return Array.isArray(value) ? value.flatMap((item, i) => within(def.element!, item, String(i))) : [];
    case 'record':
      return isRecord(value) ? Object.entries(value).flatMap(([key, item]) => within(def.valueType!, item, key)) : [];
    case 'union': {
      const matching = def.options!.filter((option) => option.safeParse(value).success);
      let first: string[] | undefined;
      for (const option of matching.length > 0 ? matching : def.options!) {
        const unknown = unknownFields(option, value, path);
        if (unknown.length === 0) return [];
        first ??= unknown;
      }
      return first ?? [];
    }
    case 'object': {
      if (!isRecord(value)) return [];
      const open = def.catchall && defOf(def.catchall).type !== 'never' ? def.catchall : undefined;
      return Object.entries(value).flatMap(([key, item]) => {
        const field = Object.hasOwn(def.shape!, key) ? def.shape![key] : open;
        return field ? within(field, item, key) : [[...path, key].join('.')];
      });
    }
    default:
      return [];
  }
}

/** The top-level keys of an object schema (through optional/nullable wrappers), else none. */
export function objectKeys(schema: ZodType): string[] {
  const def = defOf(schema);
  if (def.type === 'object') return Object.keys(def.shape!);
  return def.innerType ? objectKeys(def.innerType) : [];
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
