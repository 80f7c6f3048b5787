import { z } from 'zod';
import { pageSchema, paginationQuery } from '../common/pagination';
import { idParams, route } from '../http/route';
import { createLink, createLinkInput, deleteLink, getLink, listLinks, updateLink, updateLinkInput } from './link.service';
import { linkView } from './link.view';

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const linkParams = idParams.extend({ destinationId: z.uuid({ message: 'must be a UUID' }) });

export const linkRoutes = [
  route({
    method: 'get', path: '/v1/endpoints/:id/destinations', tag: 'links', summary: 'List the destinations linked to an endpoint',
    access: read, params: idParams, query: paginationQuery, response: pageSchema(linkView),
    handler: (ctx, { params, query }) => listLinks(ctx, params.id, query),
  }),
  route({
    method: 'post', path: '/v1/endpoints/:id/destinations', tag: 'links', summary: 'Link a destination to an endpoint, with template, transform and routing rules',
    access: write, params: idParams, body: createLinkInput, response: linkView, status: 201,
    handler: (ctx, { params, body }) => createLink(ctx, params.id, body),
  }),
  route({
    method: 'get', path: '/v1/endpoints/:id/destinations/:destinationId', tag: 'links', summary: 'Get the link between an endpoint and a destination',
    access: read, params: linkParams, response: linkView,
    handler: (ctx, { params }) => getLink(ctx, params.id, params.destinationId),
  }),
  route({
    method: 'patch', path: '/v1/endpoints/:id/destinations/:destinationId', tag: 'links', summary: 'Change a link’s template, transform or routing rules',
    access: write, params: linkParams, body: updateLinkInput, response: linkView,
    handler: (ctx, { params, body }) => updateLink(ctx, params.id, params.destinationId, body),
  }),
  route({
    method: 'delete', path: '/v1/endpoints/:id/destinations/:destinationId', tag: 'links', summary: 'Unlink a destination from an endpoint',
    access: write, params: linkParams,
    handler: (ctx, { params }) => deleteLink(ctx, params.id, params.destinationId),
  }),
];
