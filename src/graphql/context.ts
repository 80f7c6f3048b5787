import { randomUUID } from 'node:crypto';
import type { AppContainer } from '../app/container';
import type { RequestContext } from '../common/request-context';
import { resolvePrincipal } from '../auth/principal';
import { Loaders } from './loaders';

export interface GraphQLContext {
  ctx: RequestContext;
  /** Batching for nested fields (src/graphql/loaders.ts). */
  loaders: Loaders;
  /** Set by a subscription resolver's authorization; the access gate re-checks it for every pushed item (src/subscriptions/subscription-access.ts). */
  subscriptionProjectId?: string;
  /** HTTP only: the page items the operation returned (src/graphql/page-rows.ts), charged to the rate limit after it ran. Apollo copies the context shallowly, so this object is shared. */
  usage?: { pageRows: number };
}

/** One forked EntityManager per operation (HTTP request or subscription message). */
export async function createGraphQLContext(
  container: AppContainer,
  credentials: { authorization?: string; projectId?: string; projectFrom?: string; clientIp?: string },
  requestId: string = randomUUID(),
): Promise<GraphQLContext> {
  const em = container.orm.em.fork();
  const { principal, error } = await resolvePrincipal(container, em, credentials.authorization);
  return { ctx: { em, principal, authError: error, projectHint: credentials.projectId, projectHintFrom: credentials.projectFrom, requestId, clientIp: credentials.clientIp, container }, loaders: new Loaders() };
}
