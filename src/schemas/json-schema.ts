import { type JsonType, type ShapeNode, typesOf } from './shape';

/** A JSON Schema (draft 2020-12) object, as this module writes them. */
export type JsonSchema = Record<string, unknown>;

export const JSON_SCHEMA_DIALECT = 'https://json-schema.org/draft/2020-12/schema';

/**
 * The JSON Schema of a learned shape: each path's types (an integer path that also held other
 * numbers is a `number`), properties `required` when present every time their object was, array
 * `items` from the sampled elements. Nothing beyond what was seen: no formats or enums, and objects
 * stay open (a provider may add fields; docs/schemas.md).
 */
export function shapeToJsonSchema(root: ShapeNode, meta: { title: string; description?: string }): JsonSchema {
  return { $schema: JSON_SCHEMA_DIALECT, title: meta.title, ...(meta.description ? { description: meta.description } : {}), ...nodeSchema(root) };
}

function nodeSchema(node: ShapeNode): JsonSchema {
  let types: JsonType[] = typesOf(node.t);
  if (types.includes('number')) types = types.filter((t) => t !== 'integer');
  // Nothing learned yet (a type whose first events were only counted): anything.
  if (types.length === 0) return {};
  const schema: JsonSchema = { type: types.length === 1 ? types[0] : types };
  if (node.p && types.includes('object')) {
    const objects = node.t.object ?? 0;
    const entries = Object.entries(node.p);
    schema.properties = Object.fromEntries(entries.map(([key, child]) => [key, nodeSchema(child)]));
    const required = entries.filter(([, child]) => child.n >= objects).map(([key]) => key);
    if (required.length > 0) schema.required = required;
  }
  if (types.includes('array')) schema.items = node.i ? nodeSchema(node.i) : {};
  return schema;
}
