import {
  type DocumentNode,
  type FragmentDefinitionNode,
  getNamedType,
  GraphQLError,
  type GraphQLNamedType,
  type GraphQLSchema,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  parse,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../common/pagination';
import type { Config } from '../config/config';

/**
 * Bounds on one GraphQL document, checked after parsing and BEFORE
 * validation (whose overlapping-fields rule is quadratic in repeated fields)
 * and execution, for HTTP and graphql-ws alike.
 *
 * Cost: every field costs 1; a field with a `limit` argument (a page)
 * costs 1 + limit × the cost of its selection, with the default page size
 * (50) when `limit` is not given and at most the maximum (200), so nested
 * pages multiply. Fragments count once per spread (memoized, so fragment
 * fan-out cannot explode the analysis).
 */
export interface QueryLimits {
  maxDocumentBytes: number;
  maxDepth: number;
  maxAliases: number;
  maxCost: number;
}


export function queryLimitsFrom(config: Config): QueryLimits {
  return {
    maxDocumentBytes: config.RELAY_GRAPHQL_MAX_DOCUMENT_BYTES,
    maxDepth: config.RELAY_GRAPHQL_MAX_DEPTH,
    maxAliases: config.RELAY_GRAPHQL_MAX_ALIASES,
    maxCost: config.RELAY_GRAPHQL_MAX_COST,
  };
}

export interface QueryMeasure {
  depth: number;
  aliases: number;
  cost: number;
}

function tooComplex(limit: string, value: number, max: number): GraphQLError {
  return new GraphQLError(`Query too complex: its ${limit} is ${value}, the limit is ${max}. Ask for fewer fields, smaller pages (limit) or less nesting.`, {
    extensions: { code: 'query_too_complex', status: 400, details: { limit, value, max } },
  });
}

function pageSize(args: readonly { name: { value: string }; value: ValueNode }[] | undefined, variables: Record<string, unknown>): number {
  const node = args?.find((a) => a.name.value === 'limit')?.value;
  let value: unknown;
  if (node?.kind === Kind.INT) value = Number(node.value);
  else if (node?.kind === Kind.VARIABLE) value = variables[node.name.value];
  const n = typeof value === 'number' && Number.isFinite(value) ? Math.floor(value) : DEFAULT_LIMIT;
  return Math.min(MAX_LIMIT, Math.max(1, n));
}

/** Depth, alias count and cost of every operation in `document` (summed over operations). */
export function measureDocument(schema: GraphQLSchema, document: DocumentNode, variables: Record<string, unknown> = {}): QueryMeasure {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);
  const memo = new Map<string, QueryMeasure>();
  const visiting = new Set<string>();

  function measureFragment(name: string): QueryMeasure {
    const known = memo.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    // Unknown or cyclic fragments are validation errors, reported after this check.
    if (!fragment || visiting.has(name)) return { depth: 0, aliases: 0, cost: 0 };
    visiting.add(name);
    const result = measureSelections(fragment.selectionSet, schema.getType(fragment.typeCondition.name.value) ?? undefined);
    visiting.delete(name);
    memo.set(name, result);
    return result;
  }

  function measureSelections(set: SelectionSetNode, parent: GraphQLNamedType | undefined): QueryMeasure {
    const total: QueryMeasure = { depth: 0, aliases: 0, cost: 0 };
    const add = (m: QueryMeasure) => {
      total.depth = Math.max(total.depth, m.depth);
      total.aliases += m.aliases;
      total.cost += m.cost;
    };
    for (const selection of set.selections) {
      if (selection.kind === Kind.FRAGMENT_SPREAD) add(measureFragment(selection.name.value));
      else if (selection.kind === Kind.INLINE_FRAGMENT) {
        add(measureSelections(selection.selectionSet, selection.typeCondition ? (schema.getType(selection.typeCondition.name.value) ?? undefined) : parent));
      } else {
        const field = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields()[selection.name.value] : undefined;
        const type = field ? getNamedType(field.type) : undefined;
        const inner = selection.selectionSet && (!type || isCompositeType(type)) ? measureSelections(selection.selectionSet, type) : { depth: 0, aliases: 0, cost: 0 };
        const isPage = field?.args.some((a) => a.name === 'limit') ?? false;
        add({
          depth: 1 + inner.depth,
          aliases: inner.aliases + (selection.alias ? 1 : 0),
          cost: 1 + (isPage ? pageSize(selection.arguments, variables) : 1) * inner.cost,
        });
      }
    }
    return total;
  }

  const total: QueryMeasure = { depth: 0, aliases: 0, cost: 0 };
  for (const def of document.definitions) {
    if (def.kind !== Kind.OPERATION_DEFINITION) continue;
    const root = def.operation === 'query' ? schema.getQueryType() : def.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
    const m = measureSelections(def.selectionSet, root ?? undefined);
    total.depth = Math.max(total.depth, m.depth);
    total.aliases += m.aliases;
    total.cost += m.cost;
  }
  return total;
}

export type LimitCheck = { ok: true; document: DocumentNode; cost: number } | { ok: false; error: GraphQLError };

/**
 * Parses `source` and checks it against `limits`: the size before parsing,
 * then depth, aliases and cost. A syntax error comes back tagged as Apollo
 * tags its own (GRAPHQL_PARSE_FAILED), so both transports format it alike.
 */
export function checkQuery(schema: GraphQLSchema, source: string, variables: Record<string, unknown> | null | undefined, limits: QueryLimits): LimitCheck {
  const bytes = Buffer.byteLength(source);
  if (bytes > limits.maxDocumentBytes) return { ok: false, error: tooComplex('document size in bytes', bytes, limits.maxDocumentBytes) };
  let document: DocumentNode;
  try {
    document = parse(source);
  } catch (err) {
    const syntax = err as GraphQLError;
    return { ok: false, error: new GraphQLError(syntax.message, { source: syntax.source, positions: syntax.positions, extensions: { code: 'GRAPHQL_PARSE_FAILED' } }) };
  }
  const m = measureDocument(schema, document, variables ?? {});
  if (m.depth > limits.maxDepth) return { ok: false, error: tooComplex('depth', m.depth, limits.maxDepth) };
  if (m.aliases > limits.maxAliases) return { ok: false, error: tooComplex('number of aliases', m.aliases, limits.maxAliases) };
  if (m.cost > limits.maxCost) return { ok: false, error: tooComplex('cost', m.cost, limits.maxCost) };
  return { ok: true, document, cost: m.cost };
}
