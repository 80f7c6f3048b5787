import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { UserContext } from '../auth/access';
import { cursorFilter, type Page, type PageRequest, toPage } from '../common/pagination';
import type { OrganizationContext } from '../common/request-context';
import { PLANS } from '../common/types';
import { notifyApiKeysChanged, notifyOrganizationChanged } from '../ingress/endpoint-cache';
import { Project } from '../projects/project.entity';
import { User } from '../users/user.entity';
import { OrganizationMember } from './organization-member.entity';
import { Organization } from './organization.entity';
import { type OrganizationView, toOrganizationView } from './organization.view';

export const DEFAULT_WORKSPACE_NAME = 'Default';

export const createOrganizationInput = z.object({ name: z.string().trim().min(1).max(100) });
export type CreateOrganizationInput = z.infer<typeof createOrganizationInput>;
export const updateOrganizationInput = createOrganizationInput;
export const changePlanInput = z.object({ plan: z.enum(PLANS, { message: `must be one of ${PLANS.join(', ')}` }) });
export type ChangePlanInput = z.infer<typeof changePlanInput>;

/**
 * An organization with `user` as its owner; with `defaultProject`, also the
 * project named `Default` that first sign-in gives (docs/accounts.md). Flushes
 * inside the caller's transaction.
 */
export async function createOwnedOrganization(
  em: EntityManager,
  user: User,
  name: string,
  opts: { defaultProject: boolean },
): Promise<{ organization: Organization; project?: Project }> {
  const organization = em.create(Organization, { name });
  em.create(OrganizationMember, { organization, user, role: 'owner' });
  const project = opts.defaultProject
    ? em.create(Project, { organization, user, name: DEFAULT_WORKSPACE_NAME, slug: 'default' })
    : undefined;
  await em.flush();
  return { organization, project };
}

/** The caller's organizations, newest first. */
export async function listOrganizations(ctx: UserContext, page: PageRequest): Promise<Page<OrganizationView>> {
  const before = cursorFilter(page).id;
  const memberships = await ctx.em.find(
    OrganizationMember,
    { user: ctx.principal.userId, ...(before ? { organization: { id: before } } : {}) },
    { populate: ['organization'], orderBy: { organization: { id: 'desc' } }, limit: page.limit + 1 },
  );
  const rows = memberships.map((m) => ({ id: m.organization.id, organization: m.organization, role: m.role }));
  return toPage(rows, page, (row) => toOrganizationView(row.organization, row.role));
}

export function getOrganization(ctx: OrganizationContext): OrganizationView {
  return toOrganizationView(ctx.organization, ctx.role);
}

/** A new, empty organization owned by the caller. */
export async function createOrganization(ctx: UserContext, input: CreateOrganizationInput): Promise<OrganizationView> {
  const user = await ctx.em.findOneOrFail(User, ctx.principal.userId);
  const { organization } = await ctx.em.transactional((em) => createOwnedOrganization(em, user, input.name, { defaultProject: false }));
  return toOrganizationView(organization, 'owner');
}

export async function renameOrganization(ctx: OrganizationContext, input: CreateOrganizationInput): Promise<OrganizationView> {
  ctx.organization.name = input.name;
  await ctx.em.flush();
  return toOrganizationView(ctx.organization, ctx.role);
}

/** Owner only (declared on the route/resolver). */
export async function changePlan(ctx: OrganizationContext, input: ChangePlanInput): Promise<OrganizationView> {
  ctx.organization.plan = input.plan;
  // Ingress caches each endpoint's plan (rate caps): tell every process.
  await ctx.em.transactional(async (em) => {
    await em.flush();
    await notifyOrganizationChanged(em, ctx.organization.id);
  });
  return toOrganizationView(ctx.organization, ctx.role);
}

/** Owner only. Projects and everything in them go with it (foreign keys cascade). */
export async function deleteOrganization(ctx: OrganizationContext): Promise<void> {
  await ctx.em.transactional(async (em) => {
    await em.nativeDelete(Organization, { id: ctx.organization.id });
    await notifyOrganizationChanged(em, ctx.organization.id);
    await notifyApiKeysChanged(em);
  });
}
