import { z } from 'zod';
import { ConflictError, ValidationError } from '../common/errors';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import { findInProject } from '../common/project-scope';
import type { ProjectContext } from '../common/request-context';
import { linksUsing } from '../links/link.service';
import { validateTransformExpression } from './transform-runner';
import { Transform } from './transform.entity';
import { type TransformView, toTransformView } from './transform.view';

/** Named JSONata transforms: the expression must compile on save (400 with the character position otherwise). */
export const createTransformInput = z.object({
  name: z.string().trim().min(1).max(100),
  expression: z.string().min(1).max(100_000),
});
export type CreateTransformInput = z.infer<typeof createTransformInput>;

export const updateTransformInput = createTransformInput.partial();
export type UpdateTransformInput = z.infer<typeof updateTransformInput>;

function checkExpression(expression: string): void {
  const problem = validateTransformExpression(expression);
  if (!problem) return;
  const field = { field: 'expression', message: problem.message, ...(problem.position !== undefined ? { position: problem.position } : {}) };
  const at = problem.position !== undefined ? ` (at character ${problem.position})` : '';
  throw new ValidationError(`Invalid transform: expression${at}: ${problem.message}`, { in: 'body', fields: [field] });
}

export function findTransform(ctx: ProjectContext, id: string): Promise<Transform> {
  return findInProject(ctx, Transform, 'Transform', id);
}

export async function listTransforms(ctx: ProjectContext, page: PageRequest): Promise<Page<TransformView>> {
  return findPage(ctx.em, Transform, { project: ctx.project.id }, page, toTransformView);
}

export async function getTransform(ctx: ProjectContext, id: string): Promise<TransformView> {
  return toTransformView(await findTransform(ctx, id));
}

export async function createTransform(ctx: ProjectContext, input: CreateTransformInput): Promise<TransformView> {
  checkExpression(input.expression);
  const transform = ctx.em.create(Transform, { project: ctx.project, name: input.name, expression: input.expression });
  await ctx.em.flush();
  return toTransformView(transform);
}

export async function updateTransform(ctx: ProjectContext, id: string, input: UpdateTransformInput): Promise<TransformView> {
  const transform = await findTransform(ctx, id);
  if (input.expression !== undefined) {
    checkExpression(input.expression);
    transform.expression = input.expression;
  }
  if (input.name !== undefined) transform.name = input.name;
  await ctx.em.flush();
  return toTransformView(transform);
}

/** Refused (409) while a link uses it, as its default or in a routing rule. */
export async function deleteTransform(ctx: ProjectContext, id: string): Promise<void> {
  const transform = await findTransform(ctx, id);
  const links = await linksUsing(ctx.em, 'transform', transform.id);
  if (links.length) {
    throw new ConflictError(`Transform ${id} is used by ${links.length} link(s); change or remove them first.`, { link_ids: links }, 'transform_in_use');
  }
  await ctx.em.remove(transform).flush();
}
