import { z } from 'zod';
import { pageSchema, paginationQuery } from '../common/pagination';
import { idParams, route } from '../http/route';
import { createApiKey, createApiKeyInput, getApiKey, listApiKeys, listApiKeysQuery, renameApiKey, revokeApiKey, updateApiKeyInput } from './api-key.service';
import { apiKeyView, createdApiKeyView } from './api-key.view';

/** Keys of the active project (`X-Project-Id`, `project_id`, or the default project). */
export const apiKeyRoutes = [
  route({
    method: 'post', path: '/v1/api-keys', tag: 'api-keys', summary: 'Create an API key; the full key is in this answer only',
    access: { scope: 'project', permission: 'write' }, body: createApiKeyInput.extend({ project_id: z.uuid().optional() }), response: createdApiKeyView, status: 201,
    handler: (ctx, { body }) => createApiKey(ctx, body),
  }),
  route({
    method: 'get', path: '/v1/api-keys', tag: 'api-keys', summary: 'List API keys (by prefix)',
    access: { scope: 'project', permission: 'read' }, query: paginationQuery.extend(listApiKeysQuery.shape), response: pageSchema(apiKeyView),
    handler: (ctx, { query }) => listApiKeys(ctx, query, query),
  }),
  route({
    method: 'get', path: '/v1/api-keys/:id', tag: 'api-keys', summary: 'Get an API key',
    access: { scope: 'project', permission: 'read' }, params: idParams, response: apiKeyView,
    handler: (ctx, { params }) => getApiKey(ctx, params.id),
  }),
  route({
    method: 'patch', path: '/v1/api-keys/:id', tag: 'api-keys', summary: 'Rename an API key',
    access: { scope: 'project', permission: 'write' }, params: idParams, body: updateApiKeyInput, response: apiKeyView,
    handler: (ctx, { params, body }) => renameApiKey(ctx, params.id, body),
  }),
  route({
    method: 'delete', path: '/v1/api-keys/:id', tag: 'api-keys', summary: 'Revoke an API key (it stays listed with revoked_at)',
    access: { scope: 'project', permission: 'write' }, params: idParams, response: apiKeyView,
    handler: (ctx, { params }) => revokeApiKey(ctx, params.id),
  }),
];
