import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContainer } from '../app/container';

/** Who is calling. A project API key acts as a `developer` of its own project (RULINGS.md §16). */
export type Principal =
  | { kind: 'user'; userId: string }
  | { kind: 'api_key'; apiKeyId: string; projectId: string; organizationId: string };

/**
 * The first argument of every service function: a forked EntityManager for
 * this request, the caller, and the process dependencies.
 */
export interface RequestContext {
  em: EntityManager;
  principal: Principal | null;
  requestId: string;
  container: AppContainer;
}
