import { z } from 'zod';
import type { Project } from './project.entity';

/** The wire form of a project, shared by REST and GraphQL (src/projects/project.resolver.ts). */
export const projectView = z.object({
  id: z.uuid(),
  organization_id: z.uuid(),
  user_id: z.uuid(),
  name: z.string(),
  slug: z.string(),
  header_prefix: z.string(),
  retention_days: z.number().int().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  archived_at: z.iso.datetime().nullable(),
});
export type ProjectView = z.infer<typeof projectView>;

export function toProjectView(project: Project): ProjectView {
  return {
    id: project.id,
    organization_id: project.organization.id,
    user_id: project.user.id,
    name: project.name,
    slug: project.slug,
    header_prefix: project.headerPrefix,
    retention_days: project.retentionDays ?? null,
    created_at: project.createdAt.toISOString(),
    updated_at: project.updatedAt.toISOString(),
    archived_at: project.archivedAt?.toISOString() ?? null,
  };
}
