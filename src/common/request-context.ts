import type { EntityManager } from '@mikro-orm/postgresql';
import type { AppContainer } from '../app/container';
import type { AppError } from './errors';
import type { Role } from './types';
import type { Organization } from '../organizations/organization.entity';
import type { Project } from '../projects/project.entity';

/** Who is calling. A project API key acts as a `developer` of its own project (docs/concepts.md#organizations-projects-and-roles). */
export type Principal =
  | { kind: 'user'; userId: string; sessionId?: string; tokenExpiresAt?: Date }
  | { kind: 'api_key'; apiKeyId: string; projectId: string; organizationId: string };

/**
 * The first argument of every service function: a forked EntityManager for
 * this request, the caller, and the process dependencies.
 */
export interface RequestContext {
  em: EntityManager;
  principal: Principal | null;
  /** Why the presented credential was refused; raised only when an operation needs authentication. */
  authError?: AppError;
  /** The project the caller selected (`X-Project-Id` header or `project_id` parameter), if any; an empty one is kept, to be refused. */
  projectHint?: string;
  /** Where projectHint came from, as its error names it (`X-Project-Id`, `project_id`); `project_id` when unset. */
  projectHintFrom?: string;
  requestId: string;
  /** The caller's address (src/http/client-address.ts), for per-IP limits; absent for internal callers. */
  clientIp?: string;
  container: AppContainer;
}

/**
 * A request acting inside one project (the "active project"), after the
 * permission guard has checked the caller's role there. Project-scoped
 * services take this and scope every query to `project.id`; a resource of
 * another project is a 404.
 */
export interface ProjectContext extends RequestContext {
  project: Project;
  organization: Organization;
  role: Role;
}

/** A request acting on one organization (members, invites, plan). */
export interface OrganizationContext extends RequestContext {
  organization: Organization;
  role: Role;
}

/** For trusted internal callers (workers, schedulers, tests): full rights in the given project. */
export function systemProjectContext(container: AppContainer, em: EntityManager, project: Project): ProjectContext {
  return {
    em,
    container,
    principal: null,
    requestId: 'system',
    project,
    organization: project.organization,
    role: 'owner',
  };
}
