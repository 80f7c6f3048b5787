import { z } from 'zod';
import type { ApiKey } from './api-key.entity';

/** An API key as listed: its prefix, never the key or its hash. */
export const apiKeyView = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  name: z.string(),
  prefix: z.string(),
  created_by: z.uuid().nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  revoked_at: z.iso.datetime().nullable(),
});
export type ApiKeyView = z.infer<typeof apiKeyView>;

/** The answer to creating a key: the full key, shown this once. */
export const createdApiKeyView = apiKeyView.extend({ key: z.string() });
export type CreatedApiKeyView = z.infer<typeof createdApiKeyView>;

export function toApiKeyView(key: ApiKey): ApiKeyView {
  return {
    id: key.id,
    project_id: key.project.id,
    name: key.name,
    prefix: key.prefix,
    created_by: key.createdBy?.id ?? null,
    created_at: key.createdAt.toISOString(),
    updated_at: key.updatedAt.toISOString(),
    revoked_at: key.revokedAt?.toISOString() ?? null,
  };
}
