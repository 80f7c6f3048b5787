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
