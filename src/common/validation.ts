import type { ZodType } from 'zod';
import { ValidationError } from './errors';

/**
 * Validates input against a service's zod schema; the one place where bad
 * input becomes a 400 with field-level details, for REST and GraphQL alike.
 */
export function parseInput<T>(schema: ZodType<T>, value: unknown, where = 'body'): T {
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
