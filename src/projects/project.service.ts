import { z } from 'zod';
import { ConflictError, ForbiddenError } from '../common/errors';
import { flushOrConflict } from '../common/project-scope';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import type { OrganizationContext, ProjectContext, RequestContext } from '../common/request-context';
import { SLUG_PATTERN, slugify } from '../common/slug';
import { DEFAULT_HEADER_PREFIX } from '../common/types';
import { notifyProjectChanged } from '../ingress/endpoint-cache';
import { OrganizationMember } from '../organizations/organization-member.entity';
import { User } from '../users/user.entity';
import { Project } from './project.entity';
import { type ProjectView, toProjectView } from './project.view';

/** `X-{prefix}-Event-ID`: a header-name token. */
const headerPrefix = z.string().regex(/^[A-Za-z0-9][A-Za-z0-9-]{0,31}$/, 'must be 1–32 letters, digits or hyphens (used in X-{prefix}-* headers)');

export const createProjectInput = z.object({
  name: z.string().trim().min(1).max(100),
  slug: z.string().regex(SLUG_PATTERN, 'must be lower-case letters, digits and hyphens').optional(),
  header_prefix: headerPrefix.optional(),
  retention_days: z.number().int().min(1).max(3650).nullable().optional(),
});
export type CreateProjectInput = z.infer<typeof createProjectInput>;

export const updateProjectInput = createProjectInput.partial();
export type UpdateProjectInput = z.infer<typeof updateProjectInput>;

export const listProjectsQuery = z.object({
  organization_id: z.uuid().optional(),
  include_archived: z.enum(['true', 'false']).default('false').transform((v) => v === 'true'),
});

function flushUnique(ctx: RequestContext, slug: string): Promise<void> {
  return flushOrConflict(ctx.em, () => new ConflictError(`A project with slug "${slug}" already exists in this organization.`, { field: 'slug' }, 'slug_taken'));
}

/** Projects the caller can see: an API key sees its own project; a user, those of their organizations. */
export async function listProjects(
  ctx: RequestContext,
  page: PageRequest,
  filter: { organization_id?: string; include_archived: boolean },
): Promise<Page<ProjectView>> {
  const principal = ctx.principal!;
  const scope =
    principal.kind === 'api_key'
      ? { id: principal.projectId }
      : {
          organization: {
            $in: (await ctx.em.find(OrganizationMember, { user: principal.userId }, { fields: ['organization'] })).map((m) => m.organization.id),
          },
        };
  const where = {
    $and: [scope, filter.organization_id ? { organization: filter.organization_id } : {}, filter.include_archived ? {} : { archivedAt: null }],
  };
  return findPage(ctx.em, Project, where, page, toProjectView);
}

export function getProject(ctx: ProjectContext): ProjectView {
  return toProjectView(ctx.project);
}

export async function createProject(ctx: OrganizationContext, input: CreateProjectInput): Promise<ProjectView> {
  if (ctx.principal?.kind !== 'user') throw new ForbiddenError('API keys cannot create projects.', undefined, 'user_session_required');
  const slug = input.slug ?? slugify(input.name);
  const project = ctx.em.create(Project, {
    organization: ctx.organization,
    user: ctx.em.getReference(User, ctx.principal.userId),
    name: input.name,
    slug,
    headerPrefix: input.header_prefix ?? DEFAULT_HEADER_PREFIX,
    retentionDays: input.retention_days ?? null,
  });
  await flushUnique(ctx, slug);
  return toProjectView(project);
}

export async function updateProject(ctx: ProjectContext, input: UpdateProjectInput): Promise<ProjectView> {
  const { project } = ctx;
  if (input.name !== undefined) project.name = input.name;
  if (input.slug !== undefined) project.slug = input.slug;
  if (input.header_prefix !== undefined) project.headerPrefix = input.header_prefix;
  if (input.retention_days !== undefined) project.retentionDays = input.retention_days;
  await flushUnique(ctx, project.slug);
  return toProjectView(project);
}

/** Soft delete: `archived_at` is set; the project and its data stay until restored or retention removes events. */
export async function archiveProject(ctx: ProjectContext): Promise<ProjectView> {
  ctx.project.archivedAt ??= new Date();
  await ctx.em.flush();
  // Ingress caches endpoints with their project's state: an archived project's slugs answer 404 at once.
  await notifyProjectChanged(ctx.em, ctx.project.id);
  return toProjectView(ctx.project);
}

export async function restoreProject(ctx: ProjectContext): Promise<ProjectView> {
  ctx.project.archivedAt = null;
  await ctx.em.flush();
  await notifyProjectChanged(ctx.em, ctx.project.id);
  return toProjectView(ctx.project);
}
