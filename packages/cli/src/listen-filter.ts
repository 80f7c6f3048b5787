import { type Condition, FILTER_OPERATORS, type FilterOperator } from './shared/conditions';
import { ApiError } from './api-client';
import { CliError, EXIT } from './cli-errors';

/**
 * `relay listen --event-type a,b --filter '<field> <op> <value>'`: what the
 * session keeps on the server (docs/internals/cli-tunnel.md "Event types and filters"). The
 * syntax is checked here, before anything is sent; the conditions themselves
 * (a field path, a regular expression) by the API, with the filter groups' rules.
 */

const NO_VALUE: readonly FilterOperator[] = ['exists', 'not_exists'];

const usage = (value: string, why: string) =>
  new CliError(`invalid --filter "${value}": ${why} (e.g. --filter 'body.action eq opened', --filter 'header.x-env exists')`, EXIT.usage);

/** `body.action eq opened`, `header.x-env exists`, `body.ref regex ^refs/tags/`: the value is the rest of the text (quotes around it dropped). */
export function parseFilter(text: string): Condition {
  const match = /^\s*(\S+)\s+(\S+)(?:\s+([\s\S]*?))?\s*$/.exec(text);
  if (!match) return fail(text, 'give a field, an operator and a value');
  const [, field, op, rawValue] = match;
  if (!/^(header|body)\.\S/.test(field)) return fail(text, `the field must be "header.<Name>" or "body.<dot.path>", not "${field}"`);
  const operator = op.toLowerCase() as FilterOperator;
  if (!FILTER_OPERATORS.includes(operator)) return fail(text, `the operator must be one of ${FILTER_OPERATORS.join(', ')}, not "${op}"`);
  const value = unquote(rawValue ?? '');
  if (NO_VALUE.includes(operator)) {
    if (value !== '') return fail(text, `${operator} takes no value`);
    return { field, operator };
  }
  if (rawValue === undefined) return fail(text, `${operator} needs a value`);
  return { field, operator, value };
}

function fail(text: string, why: string): never {
  throw usage(text, why);
}

function unquote(value: string): string {
  const quoted = /^(["'])([\s\S]*)\1$/.exec(value);
  return quoted ? quoted[2] : value;
}

/** `--event-type a,b` (repeatable): the types, without blanks or duplicates. */
export function parseEventTypes(values: readonly string[]): string[] {
  return [...new Set(values.flatMap((v) => v.split(',')).map((t) => t.trim()).filter(Boolean))];
}

/** One condition as `--filter` text that parseFilter reads back: the value in quotes (single ones when it holds a double quote), nothing escaped. */
export function describeFilter(f: Condition): string {
  if (f.value === undefined || NO_VALUE.includes(f.operator)) return `${f.field} ${f.operator}`;
  const value = String(f.value);
  const quote = value.includes('"') ? "'" : '"';
  return `${f.field} ${f.operator} ${quote}${value}${quote}`;
}

/** How the listen header shows the session's filters. */
export function describeFilters(eventTypes: readonly string[], filters: readonly Condition[]): string | null {
  const parts = [eventTypes.length > 0 ? `event type ${eventTypes.join(' or ')}` : '', ...filters.map(describeFilter)].filter(Boolean);
  return parts.length > 0 ? parts.join(' and ') : null;
}

/**
 * The API checks each condition as it checks filter groups' (a field path, an RE2 regular expression) and answers
 * `filters.<i>.<key>: why`: that refusal in the words of the `--filter` it came from (`texts[i]`); null for any other error.
 */
export function filterRefusal(err: unknown, texts: readonly string[]): FilterRefused | null {
  const refused = err instanceof ApiError && err.code === 'invalid_input' ? /filters\.(\d+)(?:\.\w+)?: (.*)$/.exec(err.message) : null;
  return refused ? new FilterRefused(Number(refused[1]), texts[Number(refused[1])], refused[2]) : null;
}

/** A condition the API refused: `index` is its place in the list sent. */
export class FilterRefused extends CliError {
  constructor(
    readonly index: number,
    text: string | undefined,
    why: string,
  ) {
    super(`invalid --filter "${text ?? `#${index + 1}`}": ${why}`, EXIT.usage);
  }
}
