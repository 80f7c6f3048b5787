import { type Condition, FILTER_OPERATORS, type FilterOperator } from '../common/types';
import { CliError, EXIT } from './cli-errors';

/**
 * `relay listen --event-type a,b --filter '<field> <op> <value>'`: what the
 * session keeps on the server (docs/cli.md "Event types and filters"). The
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

/** How the listen header shows the session's filters. */
export function describeFilters(eventTypes: readonly string[], filters: readonly Condition[]): string | null {
  const parts = [
    eventTypes.length > 0 ? `event type ${eventTypes.join(' or ')}` : '',
    ...filters.map((f) => (f.value === undefined || NO_VALUE.includes(f.operator) ? `${f.field} ${f.operator}` : `${f.field} ${f.operator} ${JSON.stringify(f.value)}`)),
  ].filter(Boolean);
  return parts.length > 0 ? parts.join(' and ') : null;
}
