import { z } from 'zod';
import type { Transform } from './transform.entity';

export const transformView = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  name: z.string(),
  expression: z.string().describe('JSONata, evaluated against the payload'),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type TransformView = z.infer<typeof transformView>;

export function toTransformView(t: Transform): TransformView {
  return {
    id: t.id,
    project_id: t.project.id,
    name: t.name,
    expression: t.expression,
    created_at: t.createdAt.toISOString(),
    updated_at: t.updatedAt.toISOString(),
  };
}

export const transformPreviewView = z.object({
  result: z.unknown().describe('What the transform returned; null when it failed'),
  error: z
    .object({
      code: z.enum(['transform_failed', 'transform_timeout', 'transform_empty']),
      message: z.string(),
      position: z.number().int().min(0).optional().describe('Character position in the expression, when jsonata knows it'),
    })
    .nullable()
    .describe('Why the transform failed (a delivery would fail the same way and go to the dead-letter queue); null when it ran'),
});
export type TransformPreviewView = z.infer<typeof transformPreviewView>;
