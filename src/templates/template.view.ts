import { z } from 'zod';
import type { MessageTemplate } from './message-template.entity';

export const templateView = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  name: z.string(),
  config: z.record(z.string(), z.unknown()).describe('v1 (flat) or v2 ({ version: 2, platforms: { chat_a, chat_b, chat_c, default } })'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type TemplateView = z.infer<typeof templateView>;

export function toTemplateView(t: MessageTemplate): TemplateView {
  return {
    id: t.id,
    project_id: t.project.id,
    name: t.name,
    config: t.config,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

export const previewErrorView = z.object({
  stage: z.enum(['transform', 'template']),
  path: z.string().optional(),
  line: z.number().int().optional(),
  position: z.number().int().optional(),
  message: z.string(),
});

export const previewResultView = z.object({
  transformed_payload: z.unknown(),
  outputs: z.record(z.string(), z.unknown()).describe('Per destination type: what it would receive; null when it could not be built'),
  errors: z.array(previewErrorView),
});
