import { pageSchema, paginationQuery } from '../common/pagination';
import { idParams, route } from '../http/route';
import {
  createEndpoint,
  createEndpointInput,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
  updateEndpointInput,
} from './endpoint.service';
import { endpointView } from './endpoint.view';
import { sendTestEvent, testEventView } from './endpoint-test.service';
import { rotateEndpointSecretInput } from './endpoint-secret.service';

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;

export const endpointRoutes = [
  route({
    method: 'get', path: '/v1/endpoints', tag: 'endpoints', summary: 'List endpoints (sources) of the project',
    access: read, query: paginationQuery, response: pageSchema(endpointView),
    handler: (ctx, { query }) => listEndpoints(ctx, query),
  }),
  route({
    method: 'post', path: '/v1/endpoints', tag: 'endpoints', summary: 'Create an endpoint; a generated signing secret is shown once',
    access: write, body: createEndpointInput, response: endpointView, status: 201,
    handler: (ctx, { body }) => createEndpoint(ctx, body),
  }),
  route({
    method: 'get', path: '/v1/endpoints/:id', tag: 'endpoints', summary: 'Get an endpoint',
    access: read, params: idParams, response: endpointView,
    handler: (ctx, { params }) => getEndpoint(ctx, params.id),
  }),
  route({
    method: 'patch', path: '/v1/endpoints/:id', tag: 'endpoints', summary: 'Update an endpoint (is_active=false makes ingress answer 404 at once)',
    access: write, params: idParams, body: updateEndpointInput, response: endpointView,
    handler: (ctx, { params, body }) => updateEndpoint(ctx, params.id, body),
  }),
  route({
    method: 'delete', path: '/v1/endpoints/:id', tag: 'endpoints', summary: 'Delete an endpoint with its filters, links and events',
    access: write, params: idParams,
    handler: (ctx, { params }) => deleteEndpoint(ctx, params.id),
  }),
  route({
    method: 'post', path: '/v1/endpoints/:id/signing-secret', tag: 'endpoints', summary: 'Rotate the signing secret, with an overlap window',
    access: write, params: idParams, body: rotateEndpointSecretInput, response: endpointView,
    handler: (ctx, { params, body }) => rotateSecret(ctx, params.id, body),
  }),
  route({
    method: 'post', path: '/v1/endpoints/:id/test', tag: 'endpoints',
    summary: 'Send a sample event through the real ingress path (signed with the endpoint\'s secret); returns its id',
    access: write, params: idParams, response: testEventView, status: 201,
    handler: (ctx, { params }) => sendTestEvent(ctx, params.id),
  }),
];
