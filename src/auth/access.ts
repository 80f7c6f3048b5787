import { ForbiddenError, NotFoundError, UnauthenticatedError, ValidationError } from '../common/errors';
import { isUuid } from '../common/ids';
import type { OrganizationContext, ProjectContext, RequestContext } from '../common/request-context';
import type { Role } from '../common/types';
import { OrganizationMember } from '../organizations/organization-member.entity';
import { type Organization } from '../organizations/organization.entity';
import { Project } from '../projects/project.entity';
import { API_KEY_ROLE, type Permission, PERMISSIONS, roleAllows } from './permissions';

/**
 * What an operation needs, declared as metadata on REST routes
 * (src/http/route.ts) and GraphQL resolver arguments (src/graphql/scoped.ts),
 * and enforced here, once, for both.
 */
export type AccessRequirement =
  | { scope: 'public' }
  | { scope: 'user' }
  | { scope: 'authenticated' }
  | { scope: 'project'; permission: Permission }
  | { scope: 'organization'; permission: Permission };

export interface ScopeHints {
  projectId?: string;
  /** Where projectId came from, as its error names it (`projectId`, `project_id`); `project_id` when unset. */
  projectFrom?: string;
  organizationId?: string;
}

export type UserContext = RequestContext & { principal: { kind: 'user'; userId: string } };

export function authorize(ctx: RequestContext, req: { scope: 'project'; permission: Permission }, hints?: ScopeHints): Promise<ProjectContext>;
export function authorize(ctx: RequestContext, req: { scope: 'organization'; permission: Permission }, hints?: ScopeHints): Promise<OrganizationContext>;
export function authorize(ctx: RequestContext, req: { scope: 'user' }, hints?: ScopeHints): Promise<UserContext>;
export function authorize(ctx: RequestContext, req: AccessRequirement, hints?: ScopeHints): Promise<RequestContext>;
export async function authorize(ctx: RequestContext, req: AccessRequirement, hints: ScopeHints = {}): Promise<RequestContext> {
  if (req.scope === 'public') return ctx;
  const principal = ctx.principal;
  if (!principal) throw ctx.authError ?? new UnauthenticatedError();
  switch (req.scope) {
    case 'authenticated':
      return ctx;
    case 'user':
      if (principal.kind !== 'user') throw new ForbiddenError('This operation needs a user session; API keys cannot perform it.', undefined, 'user_session_required');
      return ctx;
    case 'organization':
      return authorizeOrganization(ctx, req.permission, hints.organizationId);
    case 'project':
      // The header is checked even when the path or body names the project: a malformed selection is never ignored.
      checkProjectSelection(ctx.projectHint, ctx.projectHintFrom);
      if (hints.projectId === undefined) return authorizeProject(ctx, req.permission, ctx.projectHint);
      checkProjectSelection(hints.projectId, hints.projectFrom);
      return authorizeProject(ctx, req.permission, hints.projectId);
  }
}

/**
 * A project selection must be a project's id. An empty one (`X-Project-Id:` with no value, `?project_id=`) is
 * refused rather than read as "none": a client whose variable is unset would otherwise act on the default project.
 */
function checkProjectSelection(projectId: string | undefined, from = 'project_id'): void {
  if (projectId === undefined || isUuid(projectId)) return;
  const why = projectId === '' ? 'is empty: leave it out to use your default project' : "is not a project's id (a UUID)";
  throw new ValidationError(`${from} ${why}.`, { field: from });
}

/** Throws the 403 that names the role needed; services use it for rules that depend on the target (e.g. managing owners). */
export function requireRole(role: Role, permission: Permission): void {
  if (!roleAllows(role, permission)) {
    const needed = PERMISSIONS[permission];
    throw new ForbiddenError(`This operation needs the ${needed} role or higher; you are ${role}.`, { required_role: needed, role }, 'insufficient_role');
  }
}

async function authorizeProject(ctx: RequestContext, permission: Permission, projectId: string | undefined): Promise<ProjectContext> {
  const principal = ctx.principal!;
  if (principal.kind === 'api_key') {
    // An API key lives in exactly one project; any other project does not exist for it.
    if (projectId && projectId !== principal.projectId) throw new NotFoundError('Project', projectId);
    const project = await ctx.em.findOneOrFail(Project, principal.projectId, { populate: ['organization'] });
    requireRole(API_KEY_ROLE, permission);
    return { ...ctx, project, organization: project.organization, role: API_KEY_ROLE };
  }

  let project: Project | null;
  if (projectId) {
    project = await ctx.em.findOne(Project, projectId, { populate: ['organization'] });
  } else {
    // No project selected: the user's default, the oldest active project of their oldest membership.
    const memberships = await ctx.em.find(OrganizationMember, { user: principal.userId }, { fields: ['organization'] });
    project = await ctx.em.findOne(
      Project,
      { archivedAt: null, organization: { $in: memberships.map((m) => m.organization.id) } },
      { populate: ['organization'], orderBy: { createdAt: 'asc', id: 'asc' } },
    );
    if (!project) throw new ValidationError('Select a project: send the X-Project-Id header or a project_id parameter.', { field: 'project_id' }, 'project_required');
  }
  const membership = project && (await ctx.em.findOne(OrganizationMember, { organization: project.organization, user: principal.userId }));
  if (!project || !membership) throw new NotFoundError('Project', projectId);
  requireRole(membership.role, permission);
  return { ...ctx, project, organization: project.organization, role: membership.role };
}

async function authorizeOrganization(ctx: RequestContext, permission: Permission, organizationId: string | undefined): Promise<OrganizationContext> {
  const principal = ctx.principal!;
  if (principal.kind !== 'user') throw new ForbiddenError('API keys cannot read or manage organizations.', undefined, 'user_session_required');
  if (!organizationId || !isUuid(organizationId)) throw new NotFoundError('Organization', organizationId);
  const membership = await ctx.em.findOne(OrganizationMember, { organization: organizationId, user: principal.userId }, { populate: ['organization'] });
  if (!membership) throw new NotFoundError('Organization', organizationId);
  requireRole(membership.role, permission);
  return { ...ctx, organization: membership.organization as Organization, role: membership.role };
}
