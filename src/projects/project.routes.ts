import { z } from 'zod';
import { pageSchema, paginationQuery } from '../common/pagination';
import { route } from '../http/route';
import {
  archiveProject,
  createProject,
  createProjectInput,
  getProject,
  listProjects,
  listProjectsQuery,
  restoreProject,
  updateProject,
  updateProjectInput,
} from './project.service';
import { projectView } from './project.view';

const projectParams = z.object({ projectId: z.uuid({ message: 'must be a UUID' }) });

export const projectRoutes = [
  route({
    method: 'get', path: '/v1/projects', tag: 'projects', summary: 'List projects the caller can access',
    access: { scope: 'authenticated' }, query: paginationQuery.extend(listProjectsQuery.shape), response: pageSchema(projectView),
    handler: (ctx, { query }) => listProjects(ctx, query, query),
  }),
  route({
    method: 'post', path: '/v1/organizations/:organizationId/projects', tag: 'projects', summary: 'Create a project',
    access: { scope: 'organization', permission: 'admin' }, params: z.object({ organizationId: z.uuid() }),
    body: createProjectInput, response: projectView, status: 201,
    handler: (ctx, { body }) => createProject(ctx, body),
  }),
  route({
    method: 'get', path: '/v1/projects/:projectId', tag: 'projects', summary: 'Get a project',
    access: { scope: 'project', permission: 'read' }, params: projectParams, response: projectView,
    handler: async (ctx) => getProject(ctx),
  }),
  route({
    method: 'patch', path: '/v1/projects/:projectId', tag: 'projects', summary: 'Rename a project or change its header prefix or retention',
    access: { scope: 'project', permission: 'admin' }, params: projectParams, body: updateProjectInput, response: projectView,
    handler: (ctx, { body }) => updateProject(ctx, body),
  }),
  route({
    method: 'delete', path: '/v1/projects/:projectId', tag: 'projects', summary: 'Archive (soft-delete) a project',
    access: { scope: 'project', permission: 'admin' }, params: projectParams, response: projectView,
    handler: (ctx) => archiveProject(ctx),
  }),
  route({
    method: 'post', path: '/v1/projects/:projectId/restore', tag: 'projects', summary: 'Restore an archived project',
    access: { scope: 'project', permission: 'admin' }, params: projectParams, response: projectView,
    handler: (ctx) => restoreProject(ctx),
  }),
];
