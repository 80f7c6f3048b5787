import createClient from 'openapi-fetch';
import { ApiError, networkCause } from '../api-client';
import { apiUnreachable } from '../cli-errors';
import type { components, paths } from './v1';

/**
 * The typed `/v1` client: the types are generated from schema/openapi.json by openapi-typescript
 * (`npm run client:generate` writes ./v1.ts; a test fails when it drifts from the document), the
 * requests are made by openapi-fetch. Every request carries a bearer token from `token`; a 401 is
 * retried once with a fresh one (`force`), as the GraphQL client does.
 */
export function restClient(apiUrl: string, token: (opts: { force?: boolean }) => Promise<string>, fetchImpl: typeof fetch = fetch) {
  const authenticated = async (request: Request): Promise<Response> => {
    const send = async (force: boolean) => {
      const attempt = request.clone();
      attempt.headers.set('authorization', `Bearer ${await token({ force })}`);
      try {
        return await fetchImpl(attempt);
      } catch (err) {
        throw apiUnreachable(apiUrl, networkCause(err));
      }
    };
    const first = await send(false);
    return first.status === 401 ? send(true) : first;
  };
  return createClient<paths>({ baseUrl: apiUrl, fetch: authenticated });
}

/** The answer's data, or the API's error (`{ error: { code, message } }`) as an ApiError. */
export function unwrap<T>(result: { data?: T; error?: components['schemas']['Error'] | unknown; response: Response }): T {
  if (result.data !== undefined) return result.data;
  const body = result.error as Partial<components['schemas']['Error']> | undefined;
  throw new ApiError(body?.error?.message ?? `HTTP ${result.response.status}`, body?.error?.code ?? 'http_error', result.response.status);
}
