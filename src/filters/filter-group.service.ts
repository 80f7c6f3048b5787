import { z } from 'zod';
import { NotFoundError } from '../common/errors';
import { isUuid } from '../common/ids';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import { findEndpoint } from '../endpoints/endpoint.service';
import { notifyEndpointChanged } from '../ingress/endpoint-cache';
import { conditionSchema, logicSchema } from './condition.schema';
import { FilterCondition } from './filter-condition.entity';
import { FilterGroup } from './filter-group.entity';
import { type FilterGroupView, toFilterGroupView } from './filter-group.view';

/**
 * Filter groups of an endpoint (docs/ingress.md "Filters"), with their conditions
 * edited as one ordered list: `position` is the index in `conditions`, and an
 * update that sends `conditions` replaces the whole list.
 */
const MAX_CONDITIONS = 50;

export const createFilterGroupInput = z.object({
  name: z.string().trim().min(1).max(100),
  logic: logicSchema.default('AND'),
  is_enabled: z.boolean().default(true),
  conditions: z.array(conditionSchema).max(MAX_CONDITIONS, `at most ${MAX_CONDITIONS} conditions per group`).default([]),
});
export type CreateFilterGroupInput = z.infer<typeof createFilterGroupInput>;

export const updateFilterGroupInput = z.object({
  name: createFilterGroupInput.shape.name.optional(),
  logic: logicSchema.optional(),
  is_enabled: z.boolean().optional(),
  conditions: z.array(conditionSchema).max(MAX_CONDITIONS, `at most ${MAX_CONDITIONS} conditions per group`).optional(),
});
export type UpdateFilterGroupInput = z.infer<typeof updateFilterGroupInput>;

async function findGroup(ctx: ProjectContext, endpointId: string, id: string): Promise<FilterGroup> {
  const endpoint = await findEndpoint(ctx, endpointId);
  const group = isUuid(id) ? await ctx.em.findOne(FilterGroup, { id, endpoint }, { populate: ['conditions'] }) : null;
  if (!group) throw new NotFoundError('Filter group', id);
  return group;
}

function replaceConditions(ctx: ProjectContext, group: FilterGroup, conditions: CreateFilterGroupInput['conditions']): void {
  group.conditions.removeAll();
  conditions.forEach((c, position) => group.conditions.add(ctx.em.create(FilterCondition, { filterGroup: group, ...c, position })));
}

/** The ingress cache holds an endpoint with its filters: every change is announced. */
async function saveAndNotify(ctx: ProjectContext, group: FilterGroup): Promise<void> {
  await ctx.em.flush();
  await notifyEndpointChanged(ctx.em, group.endpoint.id);
}

export async function listFilterGroups(ctx: ProjectContext, endpointId: string, page: PageRequest): Promise<Page<FilterGroupView>> {
  const endpoint = await findEndpoint(ctx, endpointId);
  return findPage(ctx.em, FilterGroup, { endpoint }, page, toFilterGroupView, { populate: ['conditions'] as never });
}

export async function getFilterGroup(ctx: ProjectContext, endpointId: string, id: string): Promise<FilterGroupView> {
  return toFilterGroupView(await findGroup(ctx, endpointId, id));
}

export async function createFilterGroup(ctx: ProjectContext, endpointId: string, input: CreateFilterGroupInput): Promise<FilterGroupView> {
  const endpoint = await findEndpoint(ctx, endpointId);
  const group = ctx.em.create(FilterGroup, { endpoint, name: input.name, logic: input.logic, isEnabled: input.is_enabled });
  replaceConditions(ctx, group, input.conditions);
  await saveAndNotify(ctx, group);
  return toFilterGroupView(group);
}

export async function updateFilterGroup(ctx: ProjectContext, endpointId: string, id: string, input: UpdateFilterGroupInput): Promise<FilterGroupView> {
  const group = await findGroup(ctx, endpointId, id);
  if (input.name !== undefined) group.name = input.name;
  if (input.logic !== undefined) group.logic = input.logic;
  if (input.is_enabled !== undefined) group.isEnabled = input.is_enabled;
  if (input.conditions !== undefined) replaceConditions(ctx, group, input.conditions);
  await saveAndNotify(ctx, group);
  return toFilterGroupView(group);
}

export async function deleteFilterGroup(ctx: ProjectContext, endpointId: string, id: string): Promise<void> {
  const group = await findGroup(ctx, endpointId, id);
  ctx.em.remove(group);
  await saveAndNotify(ctx, group);
}
