import type { ApolloServerPlugin } from '@apollo/server';
import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  getNamedType,
  type GraphQLNamedType,
  isInterfaceType,
  isObjectType,
  Kind,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { GraphQLContext } from './context';

/**
 * Rows an operation returned: the items of every page in its result (a page
 * is a field taking `limit`, as in src/graphql/query-limits.ts; its items
 * are the lists it holds, i.e. `data`). The management rate limit charges
 * these after execution, as `/v1` charges the `data` of a list answer
 * (src/rate-limit/management-rate-limit.ts). Fields are collected per
 * response key as execution does (each fragment once per selection set), so
 * the walk is bounded by the size of the result.
 */
export function countPageRows(document: DocumentNode, operation: OperationDefinitionNode, root: GraphQLNamedType | undefined | null, data: unknown): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const def of document.definitions) if (def.kind === Kind.FRAGMENT_DEFINITION) fragments.set(def.name.value, def);

  function collect(set: SelectionSetNode, fields: Map<string, FieldNode[]>, visited: Set<string>): void {
    for (const selection of set.selections) {
      if (selection.kind === Kind.FIELD) {
        const key = selection.alias?.value ?? selection.name.value;
        fields.set(key, [...(fields.get(key) ?? []), selection]);
      } else if (selection.kind === Kind.INLINE_FRAGMENT) collect(selection.selectionSet, fields, visited);
      else if (!visited.has(selection.name.value)) {
        visited.add(selection.name.value);
        const fragment = fragments.get(selection.name.value);
        if (fragment) collect(fragment.selectionSet, fields, visited);
      }
    }
  }

  function items(page: unknown): number {
    if (!page || typeof page !== 'object') return 0;
    return Object.values(page).reduce((n: number, v) => n + (Array.isArray(v) ? v.length : 0), 0);
  }

  function walk(value: unknown, type: GraphQLNamedType | undefined | null, sets: SelectionSetNode[]): number {
    if (value === null || typeof value !== 'object' || !(isObjectType(type) || isInterfaceType(type))) return 0;
    if (Array.isArray(value)) return value.reduce((n: number, item) => n + walk(item, type, sets), 0);
    const fields = new Map<string, FieldNode[]>();
    const visited = new Set<string>();
    for (const set of sets) collect(set, fields, visited);
    let rows = 0;
    for (const [key, nodes] of fields) {
      const field = type.getFields()[nodes[0].name.value];
      const inner = nodes.flatMap((n) => (n.selectionSet ? [n.selectionSet] : []));
      if (!field || inner.length === 0) continue;
      const child = (value as Record<string, unknown>)[key];
      if (field.args.some((a) => a.name === 'limit')) rows += items(child);
      rows += walk(child, getNamedType(field.type), inner);
    }
    return rows;
  }

  return walk(data, root, [operation.selectionSet]);
}

/** Apollo plugin: records the rows of each HTTP operation's result on its context (`usage.pageRows`). */
export const pageRowsPlugin: ApolloServerPlugin<GraphQLContext> = {
  async requestDidStart() {
    return {
      async willSendResponse({ response, document, operation, schema, contextValue }) {
        if (!contextValue.usage || response.body.kind !== 'single' || !document || !operation) return;
        const root = operation.operation === 'query' ? schema.getQueryType() : operation.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
        contextValue.usage.pageRows = countPageRows(document, operation, root, response.body.singleResult.data);
      },
    };
  },
};
