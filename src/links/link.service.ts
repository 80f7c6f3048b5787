import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { ConflictError, NotFoundError, ValidationError } from '../common/errors';
import { isUuid } from '../common/ids';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import { flushOrConflict } from '../common/project-scope';
import type { ProjectContext } from '../common/request-context';
import type { RoutingRule } from '../common/types';
import { notAllowed } from '../common/validation';
import { Destination } from '../destinations/destination.entity';
import { findEndpoint } from '../endpoints/endpoint.service';
import { validateRoutingRules } from '../routing/select-route';
import { MessageTemplate } from '../templates/message-template.entity';
import { Transform } from '../transforms/transform.entity';
import { EndpointDestination } from './endpoint-destination.entity';
import { type LinkView, toLinkView } from './link.view';

/**
 * Endpoint–destination links, nested under the endpoint and addressed by the
 * destination id (a pair is linked at most once). Every template and
 * transform a link names, by default or in a routing rule, must belong to the
 * same project.
 */
const optionalId = z.uuid({ message: 'must be a UUID' }).nullable().optional();

export const createLinkInput = z.object({
  destination_id: z.uuid({ message: 'must be a UUID' }),
  template_id: optionalId,
  transform_id: optionalId,
  routing_rules: z.array(z.unknown()).optional().describe('[{ name, logic: AND|OR, conditions: [{field, operator, value}], template_id?, transform_id? }]'),
});
export type CreateLinkInput = z.infer<typeof createLinkInput>;

export const updateLinkInput = createLinkInput
  .omit({ destination_id: true })
  .extend({ destination_id: notAllowed('a link cannot move to another destination; delete it and link the other one') });
export type UpdateLinkInput = z.infer<typeof updateLinkInput>;

function invalid(field: string, message: string, code = 'invalid_input'): ValidationError {
  return new ValidationError(`Invalid body: ${field}: ${message}`, { in: 'body', fields: [{ field, message }] }, code);
}

async function checkReference(ctx: ProjectContext, entity: typeof MessageTemplate | typeof Transform, id: string, field: string): Promise<void> {
  const found = await ctx.em.count(entity, { id, project: ctx.project.id });
  if (!found) throw invalid(field, `${entity === MessageTemplate ? 'template' : 'transform'} ${id} does not exist in this project`, 'invalid_reference');
}

async function applyFields(ctx: ProjectContext, link: EndpointDestination, input: Omit<UpdateLinkInput, 'destination_id'>): Promise<void> {
  if (input.template_id) await checkReference(ctx, MessageTemplate, input.template_id, 'template_id');
  if (input.transform_id) await checkReference(ctx, Transform, input.transform_id, 'transform_id');
  if (input.template_id !== undefined) link.template = input.template_id ? ctx.em.getReference(MessageTemplate, input.template_id) : null;
  if (input.transform_id !== undefined) link.transform = input.transform_id ? ctx.em.getReference(Transform, input.transform_id) : null;
  if (input.routing_rules !== undefined) {
    const problems = validateRoutingRules(input.routing_rules);
    if (problems.length) {
      throw new ValidationError(`Invalid body: ${problems[0].path}: ${problems[0].message}`, { in: 'body', fields: problems.map((p) => ({ field: p.path, message: p.message })) });
    }
    const rules = input.routing_rules as RoutingRule[];
    for (const [i, rule] of rules.entries()) {
      if (rule.template_id) await checkReference(ctx, MessageTemplate, rule.template_id, `routing_rules[${i}].template_id`);
      if (rule.transform_id) await checkReference(ctx, Transform, rule.transform_id, `routing_rules[${i}].transform_id`);
    }
    link.routingRules = rules.map((r) => ({
      name: r.name,
      logic: r.logic,
      conditions: r.conditions.map((c) => ({ field: c.field, operator: c.operator, value: c.value ?? '' })),
      template_id: r.template_id ?? null,
      transform_id: r.transform_id ?? null,
    }));
  }
}

async function findLink(ctx: ProjectContext, endpointId: string, destinationId: string): Promise<EndpointDestination> {
  const endpoint = await findEndpoint(ctx, endpointId);
  const link = isUuid(destinationId) ? await ctx.em.findOne(EndpointDestination, { endpoint, destination: destinationId }) : null;
  if (!link) throw new NotFoundError('Link to destination', destinationId);
  return link;
}

/** Ids of the links that name this template or transform, as default or in a routing rule. */
export async function linksUsing(em: EntityManager, kind: 'template' | 'transform', id: string): Promise<string[]> {
  const rows = await em.getConnection().execute<Array<{ id: string }>>(
    `select id from endpoint_destinations where ${kind}_id = ? or routing_rules @> ?::jsonb order by id`,
    [id, JSON.stringify([{ [`${kind}_id`]: id }])],
  );
  return rows.map((r) => r.id);
}

export async function listLinks(ctx: ProjectContext, endpointId: string, page: PageRequest): Promise<Page<LinkView>> {
  const endpoint = await findEndpoint(ctx, endpointId);
  return findPage(ctx.em, EndpointDestination, { endpoint }, page, (l) => toLinkView(l, ctx.project.headerPrefix));
}

export async function getLink(ctx: ProjectContext, endpointId: string, destinationId: string): Promise<LinkView> {
  return toLinkView(await findLink(ctx, endpointId, destinationId), ctx.project.headerPrefix);
}

export async function createLink(ctx: ProjectContext, endpointId: string, input: CreateLinkInput): Promise<LinkView> {
  const endpoint = await findEndpoint(ctx, endpointId);
  const destination = await ctx.em.findOne(Destination, { id: input.destination_id, project: ctx.project.id });
  if (!destination) throw invalid('destination_id', `destination ${input.destination_id} does not exist in this project`, 'invalid_reference');
  const link = ctx.em.create(EndpointDestination, { endpoint, destination });
  await applyFields(ctx, link, input);
  await flushOrConflict(ctx.em, () => new ConflictError('This endpoint is already linked to that destination; update the existing link instead.', { field: 'destination_id' }, 'already_linked'));
  return toLinkView(link, ctx.project.headerPrefix);
}

export async function updateLink(ctx: ProjectContext, endpointId: string, destinationId: string, input: UpdateLinkInput): Promise<LinkView> {
  const link = await findLink(ctx, endpointId, destinationId);
  await applyFields(ctx, link, input);
  await ctx.em.flush();
  return toLinkView(link, ctx.project.headerPrefix);
}

export async function deleteLink(ctx: ProjectContext, endpointId: string, destinationId: string): Promise<void> {
  await ctx.em.remove(await findLink(ctx, endpointId, destinationId)).flush();
}
