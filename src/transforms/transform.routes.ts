import { pageSchema, paginationQuery } from '../common/pagination';
import { idParams, route } from '../http/route';
import {
  createTransform,
  createTransformInput,
  deleteTransform,
  getTransform,
  listTransforms,
  previewTransform,
  previewTransformInput,
  updateTransform,
  updateTransformInput,
} from './transform.service';
import { transformPreviewView, transformView } from './transform.view';

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;

export const transformRoutes = [
  route({
    method: 'get', path: '/v1/transforms', tag: 'transforms', summary: 'List transforms',
    access: read, query: paginationQuery, response: pageSchema(transformView),
    handler: (ctx, { query }) => listTransforms(ctx, query),
  }),
  route({
    method: 'post', path: '/v1/transforms', tag: 'transforms', summary: 'Create a JSONata transform (compiled on save)',
    access: write, body: createTransformInput, response: transformView, status: 201,
    handler: (ctx, { body }) => createTransform(ctx, body),
  }),
  route({
    method: 'post', path: '/v1/transforms/preview', tag: 'transforms', summary: 'Run a JSONata expression against a sample payload or a stored event: its result, or its error with the character position',
    access: read, body: previewTransformInput, response: transformPreviewView,
    handler: (ctx, { body }) => previewTransform(ctx, body),
  }),
  route({
    method: 'get', path: '/v1/transforms/:id', tag: 'transforms', summary: 'Get a transform',
    access: read, params: idParams, response: transformView,
    handler: (ctx, { params }) => getTransform(ctx, params.id),
  }),
  route({
    method: 'patch', path: '/v1/transforms/:id', tag: 'transforms', summary: 'Rename a transform or change its expression',
    access: write, params: idParams, body: updateTransformInput, response: transformView,
    handler: (ctx, { params, body }) => updateTransform(ctx, params.id, body),
  }),
  route({
    method: 'delete', path: '/v1/transforms/:id', tag: 'transforms', summary: 'Delete a transform (409 while a link uses it)',
    access: write, params: idParams,
    handler: (ctx, { params }) => deleteTransform(ctx, params.id),
  }),
];
