import { type ApiClient, ApiError } from './api-client';
import { CliError, EXIT } from './cli-errors';

/** How many of the project's sources the message names. */
const NAMED = 10;

/** The slug of the source a not_found error is about, or null when it is about something else (a transform, an event). */
export function missingSourceSlug(err: unknown): string | null {
  if (!(err instanceof ApiError) || err.code !== 'not_found' || err.details?.resource !== 'Endpoint') return null;
  return typeof err.details.id === 'string' ? err.details.id : null;
}

/**
 * The error for a source slug the project does not have (a typo, another project's, a name instead of a slug): it names
 * the project's sources, since a slug carries a suffix the name does not (`My source` is `my-source-1a2b3c4d`).
 */
export async function unknownSource(client: ApiClient, projectId: string | undefined, slug: string): Promise<CliError> {
  let slugs: string[] | null = null;
  try {
    const { endpoints } = await client.request<{ endpoints: { data: Array<{ slug: string; system: boolean }> } }>(
      'query Sources($p: ID) { endpoints(projectId: $p, limit: 200) { data { slug system } } }',
      { p: projectId },
    );
    slugs = endpoints.data.filter((e) => !e.system).map((e) => e.slug);
  } catch {
    // Only a hint: without the list, the message says where to find it.
  }
  return new CliError(`no source "${slug}" in this project: ${sourcesHint(slugs)}`, EXIT.noSources);
}

export function sourcesHint(slugs: string[] | null): string {
  if (slugs === null) return "its sources' slugs are on the dashboard's Endpoints page (or GET /v1/endpoints)";
  if (slugs.length === 0) return 'it has none yet; create one in the dashboard or with POST /v1/endpoints';
  const more = slugs.length > NAMED ? `, and ${slugs.length - NAMED} more (the dashboard's Endpoints page)` : '';
  return `its source${slugs.length === 1 ? ' is' : 's are'} ${slugs.slice(0, NAMED).join(', ')}${more}`;
}
