import { z } from 'zod';
import { atMostOne, given, present } from '../common/validation';
import { ConflictError, ValidationError } from '../common/errors';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import { findInProject } from '../common/project-scope';
import type { ProjectContext } from '../common/request-context';
import { DESTINATION_TYPES } from '../common/types';
import { linksUsing } from '../links/link.service';
import { MessageTemplate } from './message-template.entity';
import { validateTemplateConfig } from './template-config';
import { type PreviewResult, previewFormatting } from './template-preview.service';
import { type TemplateView, toTemplateView } from './template.view';

/** Message templates: `config` is checked on every save, so a broken template is refused with its path and line. */
const config = z.record(z.string(), z.unknown(), { message: 'must be an object (v1 flat, or {"version": 2, "platforms": {...}})' });

export const createTemplateInput = z.object({
  name: z.string().trim().min(1).max(100),
  config,
});
export type CreateTemplateInput = z.infer<typeof createTemplateInput>;

export const updateTemplateInput = createTemplateInput.partial();
export type UpdateTemplateInput = z.infer<typeof updateTemplateInput>;

export const previewTemplateInput = z.object({
  template_id: z.uuid({ message: 'must be a UUID' }).nullable().optional().describe('A saved template, or give template_config'),
  template_config: config.nullable().optional(),
  transform_id: z.uuid({ message: 'must be a UUID' }).nullable().optional().describe('A saved transform, or give transform_expression'),
  transform_expression: z.string().max(100_000).nullable().optional(),
  payload: z.unknown().optional().describe('Sample body; or give event_id'),
  event_id: z.uuid({ message: 'must be a UUID' }).nullable().optional(),
  event_type: z.string().max(200).nullable().optional(),
  destination_types: z.array(z.enum(DESTINATION_TYPES)).nullable().optional(),
}).meta({
  // Checked in template-preview.service.ts: stated here so the OpenAPI document carries the rules.
  allOf: [atMostOne(given('template_id'), given('template_config')), atMostOne(given('transform_id'), given('transform_expression'))],
  anyOf: [present('payload'), given('event_id')],
});
export type PreviewTemplateInput = z.infer<typeof previewTemplateInput>;

function checkConfig(value: Record<string, unknown>): void {
  const problems = validateTemplateConfig(value);
  if (!problems.length) return;
  const fields = problems.map((p) => ({ field: p.path ? `config.${p.path}` : 'config', message: p.message, ...(p.line ? { line: p.line } : {}) }));
  const first = fields[0];
  throw new ValidationError(`Invalid template: ${first.field}${first.line ? ` (line ${first.line})` : ''}: ${first.message}`, { in: 'body', fields });
}

export function findTemplate(ctx: ProjectContext, id: string): Promise<MessageTemplate> {
  return findInProject(ctx, MessageTemplate, 'Template', id);
}

export async function listTemplates(ctx: ProjectContext, page: PageRequest): Promise<Page<TemplateView>> {
  return findPage(ctx.em, MessageTemplate, { project: ctx.project.id }, page, toTemplateView);
}

export async function getTemplate(ctx: ProjectContext, id: string): Promise<TemplateView> {
  return toTemplateView(await findTemplate(ctx, id));
}

export async function createTemplate(ctx: ProjectContext, input: CreateTemplateInput): Promise<TemplateView> {
  checkConfig(input.config);
  const template = ctx.em.create(MessageTemplate, { project: ctx.project, name: input.name, config: input.config });
  await ctx.em.flush();
  return toTemplateView(template);
}

export async function updateTemplate(ctx: ProjectContext, id: string, input: UpdateTemplateInput): Promise<TemplateView> {
  const template = await findTemplate(ctx, id);
  if (input.config !== undefined) {
    checkConfig(input.config);
    template.config = input.config;
  }
  if (input.name !== undefined) template.name = input.name;
  await ctx.em.flush();
  return toTemplateView(template);
}

/** Refused (409) while a link uses it, as its default or in a routing rule: unlink or change those first. */
export async function deleteTemplate(ctx: ProjectContext, id: string): Promise<void> {
  const template = await findTemplate(ctx, id);
  const links = await linksUsing(ctx.em, 'template', template.id);
  if (links.length) {
    throw new ConflictError(`Template ${id} is used by ${links.length} link(s); change or remove them first.`, { link_ids: links }, 'template_in_use');
  }
  await ctx.em.remove(template).flush();
}

/** docs/templates.md: renders without delivering (the formatting engine's previewFormatting). */
export function previewTemplate(ctx: ProjectContext, input: PreviewTemplateInput): Promise<PreviewResult> {
  return previewFormatting({ em: ctx.em, projectId: ctx.project.id }, input);
}
