/**
 * TypeScript types from the JSON Schemas the relay infers (docs/schemas.md): shared by `relay schema
 * --typescript` and the dashboard. Those schemas use four keywords only (`type`, `properties`,
 * `required`, `items`), so a small printer does it, fast and without dependencies: the general
 * converters (json-schema-to-typescript) weigh megabytes (prettier) and take seconds on a large
 * provider payload, too much for the one-file CLI (docs/internals/dependencies.md).
 */

export interface InferredJsonSchema {
  type?: string | string[];
  properties?: Record<string, InferredJsonSchema>;
  required?: string[];
  items?: InferredJsonSchema;
  title?: string;
  description?: string;
}

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

const SCALARS: Record<string, string> = { string: 'string', integer: 'number', number: 'number', boolean: 'boolean', null: 'null' };

/** The TypeScript type of a schema, nested objects inline; `indent` is the current line's. */
export function typeOf(schema: InferredJsonSchema, indent = ''): string {
  const types = schema.type === undefined ? [] : Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.length === 0) return 'unknown';
  const parts = [...new Set(types.map((t) => typeOfOne(t, schema, indent)))];
  return parts.length === 1 ? parts[0] : parts.map((p) => (p.includes('\n') || p.includes('|') ? `(${p})` : p)).join(' | ');
}

function typeOfOne(type: string, schema: InferredJsonSchema, indent: string): string {
  if (type === 'object') return objectType(schema, indent);
  if (type === 'array') {
    const item = schema.items ? typeOf(schema.items, indent) : 'unknown';
    return `Array<${item}>`;
  }
  return SCALARS[type] ?? 'unknown';
}

function objectType(schema: InferredJsonSchema, indent: string): string {
  const entries = Object.entries(schema.properties ?? {});
  if (entries.length === 0) return 'Record<string, unknown>';
  const required = new Set(schema.required ?? []);
  const inner = `${indent}  `;
  const lines = entries.map(([key, child]) => `${inner}${IDENTIFIER.test(key) ? key : JSON.stringify(key)}${required.has(key) ? '' : '?'}: ${typeOf(child, inner)};`);
  return `{\n${lines.join('\n')}\n${indent}}`;
}

/** `pull_request` → `PullRequestEvent`, `order.paid` → `OrderPaidEvent`; no type → `UntypedEvent`. */
export function typeName(eventType: string, suffix = 'Event'): string {
  const words = eventType.split(/[^A-Za-z0-9]+/).filter(Boolean);
  const name = words.map((w) => w[0].toUpperCase() + w.slice(1)).join('');
  if (!name) return `Untyped${suffix}`;
  return /^[0-9]/.test(name) ? `T${name}${suffix}` : `${name}${suffix}`;
}

const comment = (text: string) => `/** ${text.replace(/\*\//g, '*\\/')} */\n`;

/**
 * One module: an exported type per event type, a map from each event type to its type, and their
 * union. `source` names the map (`Codehost A` → `CodehostAEvents`).
 */
export function typescriptModule(source: { name: string; slug: string }, schemas: Array<{ eventType: string; jsonSchema: InferredJsonSchema }>, generatedAt: string): string {
  const used = new Set<string>();
  const unique = (name: string) => {
    let candidate = name;
    for (let k = 2; used.has(candidate); k++) candidate = `${name}${k}`;
    used.add(candidate);
    return candidate;
  };
  const mapName = unique(typeName(source.name, 'Events'));
  const unionName = unique(mapName.replace(/Events$/, 'Event'));
  const out = [
    `// Events of the source ${source.name} (${source.slug}), as the relay inferred them from the events it received`,
    `// (generated ${generatedAt}). A property marked ? was missing from some events; widen what you rely on.`,
    '',
  ];
  const named = schemas.map((s) => ({ ...s, name: unique(typeName(s.eventType)) }));
  for (const s of named) {
    const body = typeOf(s.jsonSchema);
    out.push(comment(s.jsonSchema.description ?? `Event type ${JSON.stringify(s.eventType)}.`).trimEnd());
    out.push(body.startsWith('{\n') ? `export interface ${s.name} ${body}` : `export type ${s.name} = ${body};`);
    out.push('');
  }
  out.push(comment('Each event type of the source, and its payload.').trimEnd());
  out.push(`export interface ${mapName} {`);
  for (const s of named) out.push(`  ${JSON.stringify(s.eventType)}: ${s.name};`);
  out.push('}', '');
  out.push(`export type ${unionName} = ${named.length > 0 ? `${mapName}[keyof ${mapName}]` : 'never'};`, '');
  return out.join('\n');
}
