import { randomUUID } from 'node:crypto';
import type { AppContainer } from '../app/container';
import type { RequestContext } from '../common/request-context';
import { resolvePrincipal } from '../auth/principal';

export interface GraphQLContext {
  ctx: RequestContext;
}

/** One forked EntityManager per operation (HTTP request or subscription message). */
export async function createGraphQLContext(
  container: AppContainer,
  authorization: string | undefined,
  requestId: string = randomUUID(),
): Promise<GraphQLContext> {
  const em = container.orm.em.fork();
  const principal = await resolvePrincipal(container, em, authorization);
  return { ctx: { em, principal, requestId, container } };
}
