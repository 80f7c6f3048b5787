import { z } from 'zod';
import { API_KEY_PREFIX } from '../auth/principal';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import { findInProject } from '../common/project-scope';
import type { ProjectContext } from '../common/request-context';
import { hashToken, randomToken } from '../common/secret-box';
import { notifyApiKeysChanged } from '../ingress/endpoint-cache';
import { User } from '../users/user.entity';
import { ApiKey } from './api-key.entity';
import { type ApiKeyView, type CreatedApiKeyView, toApiKeyView } from './api-key.view';

/**
 * Project API keys (`svc_` + 32 random bytes, base64url): shown once at
 * creation, stored as SHA-256 (src/auth/principal.ts looks them up by hash),
 * listed by their first 12 characters, revoked rather than deleted. A key acts
 * as a `developer` of its project.
 */
export const PREFIX_LENGTH = 12;

export const createApiKeyInput = z.object({ name: z.string().trim().min(1).max(100) });
export type CreateApiKeyInput = z.infer<typeof createApiKeyInput>;
export const updateApiKeyInput = createApiKeyInput;
export const listApiKeysQuery = z.object({
  include_revoked: z.enum(['true', 'false']).default('true').transform((v) => v === 'true'),
});

export function generateApiKey(): string {
  return `${API_KEY_PREFIX}${randomToken(32)}`;
}

export async function createApiKey(ctx: ProjectContext, input: CreateApiKeyInput): Promise<CreatedApiKeyView> {
  const key = generateApiKey();
  const row = ctx.em.create(ApiKey, {
    project: ctx.project,
    name: input.name,
    prefix: key.slice(0, PREFIX_LENGTH),
    keyHash: hashToken(key),
    createdBy: ctx.principal?.kind === 'user' ? ctx.em.getReference(User, ctx.principal.userId) : null,
  });
  await ctx.em.flush();
  return { ...toApiKeyView(row), key };
}

export async function listApiKeys(ctx: ProjectContext, page: PageRequest, filter: { include_revoked: boolean }): Promise<Page<ApiKeyView>> {
  return findPage(ctx.em, ApiKey, { project: ctx.project.id, ...(filter.include_revoked ? {} : { revokedAt: null }) }, page, toApiKeyView);
}

function findApiKey(ctx: ProjectContext, id: string): Promise<ApiKey> {
  return findInProject(ctx, ApiKey, 'API key', id);
}

export async function getApiKey(ctx: ProjectContext, id: string): Promise<ApiKeyView> {
  return toApiKeyView(await findApiKey(ctx, id));
}

export async function renameApiKey(ctx: ProjectContext, id: string, input: CreateApiKeyInput): Promise<ApiKeyView> {
  const key = await findApiKey(ctx, id);
  key.name = input.name;
  await ctx.em.flush();
  return toApiKeyView(key);
}

/** Idempotent: revoking a revoked key keeps its first `revoked_at`. */
export async function revokeApiKey(ctx: ProjectContext, id: string): Promise<ApiKeyView> {
  const key = await findApiKey(ctx, id);
  if (!key.revokedAt) {
    key.revokedAt = new Date();
    // Ingress caches which project a key belongs to: the NOTIFY (sent at commit) drops it there too.
    await ctx.em.transactional(async (em) => {
      await em.flush();
      await notifyApiKeysChanged(em);
    });
  }
  return toApiKeyView(key);
}
