import { z } from 'zod';
import { exactlyOne, given, present } from '../common/validation';
import { ConflictError, ValidationError } from '../common/errors';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import { findInProject } from '../common/project-scope';
import type { ProjectContext } from '../common/request-context';
import { findEvent } from '../events/event.service';
import { linksUsing } from '../links/link.service';
import { runTransform, TransformError, validateTransformExpression } from './transform-runner';
import { Transform } from './transform.entity';
import { type TransformPreviewView, type TransformView, toTransformView } from './transform.view';

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

export const previewTransformInput = z.object({
  expression: z.string().min(1).max(100_000),
  event_id: z.uuid({ message: 'must be a UUID' }).nullable().optional().describe('A stored event of the project to run against; or give payload'),
  payload: z.unknown().optional().describe('A sample body to run against; or give event_id'),
}).meta(exactlyOne(present('payload'), given('event_id')));
export type PreviewTransformInput = z.infer<typeof previewTransformInput>;

/**
 * Runs an expression, saved or not, against a sample payload or a stored
 * event exactly as a delivery would (same runner, time limit and checks).
 * The expression's own failure is the answer (`error` with jsonata's
 * character position), not a 400: the editor shows it beside the text.
 */
export async function previewTransform(ctx: ProjectContext, input: PreviewTransformInput): Promise<TransformPreviewView> {
  const given = (input.event_id ? 1 : 0) + (input.payload !== undefined ? 1 : 0);
  if (given !== 1) {
    throw new ValidationError('Give either a sample payload or the event_id of a stored event to run the transform against.', {
      in: 'body',
      fields: [{ field: 'payload', message: 'give payload or event_id, exactly one' }],
    });
  }
  const payload = input.event_id ? (await findEvent(ctx, input.event_id)).payload : input.payload;
  try {
    return { result: await runTransform(input.expression, payload), error: null };
  } catch (err) {
    if (!(err instanceof TransformError)) throw err;
    return { result: null, error: { code: err.code, message: err.message, ...(err.position !== undefined ? { position: err.position } : {}) } };
  }
}
