import { z } from 'zod';
import { pageSchema, paginationQuery } from '../common/pagination';
import { idParams, route } from '../http/route';
import {
  createFilterGroup,
  createFilterGroupInput,
  deleteFilterGroup,
  getFilterGroup,
  listFilterGroups,
  updateFilterGroup,
  updateFilterGroupInput,
} from './filter-group.service';
import { filterGroupView } from './filter-group.view';

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const groupParams = idParams.extend({ groupId: z.uuid({ message: 'must be a UUID' }) });

export const filterGroupRoutes = [
  route({
    method: 'get', path: '/v1/endpoints/:id/filter-groups', tag: 'filters', summary: 'List the filter groups of an endpoint',
    access: read, params: idParams, query: paginationQuery, response: pageSchema(filterGroupView),
    handler: (ctx, { params, query }) => listFilterGroups(ctx, params.id, query),
  }),
  route({
    method: 'post', path: '/v1/endpoints/:id/filter-groups', tag: 'filters', summary: 'Create a filter group with its ordered conditions',
    access: write, params: idParams, body: createFilterGroupInput, response: filterGroupView, status: 201,
    handler: (ctx, { params, body }) => createFilterGroup(ctx, params.id, body),
  }),
  route({
    method: 'get', path: '/v1/endpoints/:id/filter-groups/:groupId', tag: 'filters', summary: 'Get a filter group',
    access: read, params: groupParams, response: filterGroupView,
    handler: (ctx, { params }) => getFilterGroup(ctx, params.id, params.groupId),
  }),
  route({
    method: 'patch', path: '/v1/endpoints/:id/filter-groups/:groupId', tag: 'filters', summary: 'Update a filter group; `conditions` replaces the whole list',
    access: write, params: groupParams, body: updateFilterGroupInput, response: filterGroupView,
    handler: (ctx, { params, body }) => updateFilterGroup(ctx, params.id, params.groupId, body),
  }),
  route({
    method: 'delete', path: '/v1/endpoints/:id/filter-groups/:groupId', tag: 'filters', summary: 'Delete a filter group',
    access: write, params: groupParams,
    handler: (ctx, { params }) => deleteFilterGroup(ctx, params.id, params.groupId),
  }),
];
