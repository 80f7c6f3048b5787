import { createHmac, randomBytes } from 'node:crypto';
import type { EntityManager } from '@mikro-orm/postgresql';
import { ApiKey } from '../../src/api-keys/api-key.entity';
import type { Condition, Logic } from '../../src/common/types';
import { hashToken } from '../../src/common/secret-box';
import type { WebhookEndpoint } from '../../src/endpoints/endpoint.entity';
import { FilterCondition } from '../../src/filters/filter-condition.entity';
import { FilterGroup } from '../../src/filters/filter-group.entity';
import type { Project } from '../../src/projects/project.entity';

/** Rows and request helpers for ingress tests (and anyone else posting to /hooks/:slug). */

export async function createApiKey(em: EntityManager, project: Project, fields: { revokedAt?: Date | null } = {}): Promise<{ apiKey: ApiKey; key: string }> {
  const key = `svc_${randomBytes(24).toString('base64url')}`;
  const apiKey = em.create(ApiKey, { project, name: 'Test key', prefix: key.slice(0, 12), keyHash: hashToken(key), revokedAt: fields.revokedAt ?? null });
  await em.flush();
  return { apiKey, key };
}

export async function createFilterGroup(
  em: EntityManager,
  endpoint: WebhookEndpoint,
  fields: { logic?: Logic; isEnabled?: boolean; conditions: Condition[]; name?: string },
): Promise<FilterGroup> {
  const group = em.create(FilterGroup, { endpoint, name: fields.name ?? 'Test filter', logic: fields.logic ?? 'AND', isEnabled: fields.isEnabled ?? true });
  fields.conditions.forEach((c, position) => em.create(FilterCondition, { filterGroup: group, field: c.field, operator: c.operator, value: c.value ?? '', position }));
  await em.flush();
  return group;
}

export const hmacHex = (secret: string, ...parts: string[]) => {
  const h = createHmac('sha256', secret);
  for (const p of parts) h.update(p);
  return h.digest('hex');
};

/** `X-Hub-Signature-256: sha256=<hex>` over the exact body string. */
export const hubSignature = (secret: string, body: string) => ({ 'X-Hub-Signature-256': `sha256=${hmacHex(secret, body)}` });

export interface HookResponse {
  status: number;
  body: { event_id?: string; error?: { code: string; message: string; details?: Record<string, unknown> } };
  headers: Headers;
}

/** POSTs a JSON string to /hooks/:slug (signed with `secret` unless headers are given). */
export async function postHook(
  baseUrl: string,
  slug: string,
  body: string,
  headers: Record<string, string> = {},
): Promise<HookResponse> {
  const res = await fetch(`${baseUrl}/hooks/${slug}`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', ...headers },
    body,
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : {}, headers: res.headers };
}

export async function postSigned(baseUrl: string, slug: string, secret: string, payload: unknown, headers: Record<string, string> = {}): Promise<HookResponse> {
  const body = JSON.stringify(payload);
  return postHook(baseUrl, slug, body, { ...hubSignature(secret, body), ...headers });
}
