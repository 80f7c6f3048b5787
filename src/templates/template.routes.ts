import { pageSchema, paginationQuery } from '../common/pagination';
import { idParams, route } from '../http/route';
import {
  createTemplate,
  createTemplateInput,
  deleteTemplate,
  getTemplate,
  listTemplates,
  previewTemplate,
  previewTemplateInput,
  updateTemplate,
  updateTemplateInput,
} from './template.service';
import { previewResultView, templateView } from './template.view';

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;

export const templateRoutes = [
  route({
    method: 'get', path: '/v1/templates', tag: 'templates', summary: 'List message templates',
    access: read, query: paginationQuery, response: pageSchema(templateView),
    handler: (ctx, { query }) => listTemplates(ctx, query),
  }),
  route({
    method: 'post', path: '/v1/templates', tag: 'templates', summary: 'Create a message template (config v1 or v2, validated)',
    access: write, body: createTemplateInput, response: templateView, status: 201,
    handler: (ctx, { body }) => createTemplate(ctx, body),
  }),
  route({
    method: 'post', path: '/v1/templates/preview', tag: 'templates', summary: 'Render a template/transform against a sample payload or a stored event, without delivering',
    access: read, body: previewTemplateInput, response: previewResultView,
    handler: (ctx, { body }) => previewTemplate(ctx, body),
  }),
  route({
    method: 'get', path: '/v1/templates/:id', tag: 'templates', summary: 'Get a message template',
    access: read, params: idParams, response: templateView,
    handler: (ctx, { params }) => getTemplate(ctx, params.id),
  }),
  route({
    method: 'patch', path: '/v1/templates/:id', tag: 'templates', summary: 'Rename a template or replace its config',
    access: write, params: idParams, body: updateTemplateInput, response: templateView,
    handler: (ctx, { params, body }) => updateTemplate(ctx, params.id, body),
  }),
  route({
    method: 'delete', path: '/v1/templates/:id', tag: 'templates', summary: 'Delete a template (409 while a link uses it)',
    access: write, params: idParams,
    handler: (ctx, { params }) => deleteTemplate(ctx, params.id),
  }),
];
