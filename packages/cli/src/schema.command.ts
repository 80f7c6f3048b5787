import { ApiClient } from './api-client';
import { CliError } from './cli-errors';
import { profileStore, resolveApiUrl } from './config-store';
import { type InferredJsonSchema, typescriptModule } from './shared/schema-typescript';
import { unknownSource } from './unknown-source';

export interface SchemaOptions {
  typescript?: boolean;
  project?: string;
  apiUrl?: string;
  profile?: string;
}

interface Source {
  id: string;
  name: string;
  slug: string;
  system: boolean;
}

interface SourceSchemas {
  warmupEvents: number;
  data: Array<{ eventType: string; eventCount: number; learnedCount: number; warm: boolean; jsonSchema: InferredJsonSchema & Record<string, unknown> }>;
}

/**
 * `relay schema <source> [<event type>] [--typescript]`: the JSON Schema the relay inferred for the
 * source's events (one event type, or all of them under `$defs`), or TypeScript types a receiver
 * compiles against (docs/schemas.md). Printed on stdout; what went wrong on stderr, with an exit code.
 */
export async function schema(slug: string, eventType: string | undefined, opts: SchemaOptions): Promise<void> {
  const store = profileStore(opts);
  const client = new ApiClient(resolveApiUrl(opts.apiUrl, store.read()), store);
  const source = await findSource(client, opts.project, slug);
  const { sourceSchemas } = await client.request<{ sourceSchemas: SourceSchemas }>(
    'query Schemas($p: ID, $e: ID!, $t: String) { sourceSchemas(projectId: $p, endpointId: $e, eventType: $t) { warmupEvents data { eventType eventCount learnedCount warm jsonSchema } } }',
    { p: opts.project, e: source.id, t: eventType ?? null },
  );
  const schemas = sourceSchemas.data;
  if (schemas.length === 0) {
    if (eventType === undefined) throw new CliError(`the relay has learned no event of ${slug} yet: it learns from the events the source receives`);
    const known = await client.request<{ sourceSchemas: { data: Array<{ eventType: string }> } }>(
      'query Types($p: ID, $e: ID!) { sourceSchemas(projectId: $p, endpointId: $e) { data { eventType } } }',
      { p: opts.project, e: source.id },
    );
    const types = known.sourceSchemas.data.map((s) => JSON.stringify(s.eventType));
    throw new CliError(`${slug} has received no event of type ${JSON.stringify(eventType)}${types.length ? `; its types: ${types.join(', ')}` : ''}`);
  }
  for (const s of schemas.filter((x) => !x.warm)) {
    process.stderr.write(`relay: ${JSON.stringify(s.eventType)} is still being learned (${s.learnedCount} of the ${sourceSchemas.warmupEvents} events of its warm-up)\n`);
  }
  if (opts.typescript) {
    process.stdout.write(typescriptModule(source, schemas.map((s) => ({ eventType: s.eventType, jsonSchema: s.jsonSchema })), new Date().toISOString()));
    return;
  }
  const document =
    eventType !== undefined
      ? schemas[0].jsonSchema
      : {
          $schema: schemas[0].jsonSchema.$schema,
          title: `Events of ${source.name} (${source.slug})`,
          $defs: Object.fromEntries(schemas.map((s) => [s.eventType, withoutDialect(s.jsonSchema)])),
        };
  process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
}

const withoutDialect = ({ $schema: _, ...rest }: Record<string, unknown>) => rest;

/** The project's source with this slug (the system source too), page by page. */
async function findSource(client: ApiClient, projectId: string | undefined, slug: string): Promise<Source> {
  let cursor: string | null = null;
  do {
    const { endpoints }: { endpoints: { data: Source[]; nextCursor: string | null } } = await client.request(
      'query Sources($p: ID, $c: String) { endpoints(projectId: $p, limit: 200, cursor: $c) { data { id name slug system } nextCursor } }',
      { p: projectId, c: cursor },
    );
    const found = endpoints.data.find((e) => e.slug === slug);
    if (found) return found;
    cursor = endpoints.nextCursor;
  } while (cursor);
  throw await unknownSource(client, projectId, slug);
}
