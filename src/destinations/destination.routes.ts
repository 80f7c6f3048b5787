import { z } from 'zod';
import { pageSchema, paginationQuery } from '../common/pagination';
import { idParams, route } from '../http/route';
import { rotateDestinationSecretInput } from './destination-secret.service';
import {
  clearSigningSecret,
  createDestination,
  createDestinationInput,
  deleteDestination,
  getDestination,
  listDestinationPlatforms,
  listDestinations,
  rotateSigningSecret,
  updateDestination,
  updateDestinationInput,
} from './destination.service';
import { destinationPlatformView } from './destination-platforms';
import { destinationView } from './destination.view';

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;

export const destinationRoutes = [
  route({
    method: 'get', path: '/v1/destination-platforms', tag: 'destinations', summary: 'What each destination type sends, and whether this server is configured to send it',
    access: { scope: 'authenticated' }, response: z.object({ data: z.array(destinationPlatformView) }),
    handler: async (ctx) => ({ data: listDestinationPlatforms(ctx) }),
  }),
  route({
    method: 'get', path: '/v1/destinations', tag: 'destinations', summary: 'List destinations of the project',
    access: read, query: paginationQuery, response: pageSchema(destinationView),
    handler: (ctx, { query }) => listDestinations(ctx, query),
  }),
  route({
    method: 'post', path: '/v1/destinations', tag: 'destinations', summary: 'Create a destination; secrets are write-only',
    access: write, body: createDestinationInput, response: destinationView, status: 201,
    handler: (ctx, { body }) => createDestination(ctx, body),
  }),
  route({
    method: 'get', path: '/v1/destinations/:id', tag: 'destinations', summary: 'Get a destination',
    access: read, params: idParams, response: destinationView,
    handler: (ctx, { params }) => getDestination(ctx, params.id),
  }),
  route({
    method: 'patch', path: '/v1/destinations/:id', tag: 'destinations', summary: 'Update a destination (secrets: a string replaces, null removes)',
    access: write, params: idParams, body: updateDestinationInput, response: destinationView,
    handler: (ctx, { params, body }) => updateDestination(ctx, params.id, body),
  }),
  route({
    method: 'delete', path: '/v1/destinations/:id', tag: 'destinations', summary: 'Delete a destination with its links and delivery history',
    access: write, params: idParams,
    handler: (ctx, { params }) => deleteDestination(ctx, params.id),
  }),
  route({
    method: 'post', path: '/v1/destinations/:id/signing-secret', tag: 'destinations', summary: 'Rotate the signing secret of a webhook or cli destination, with an overlap',
    access: write, params: idParams, body: rotateDestinationSecretInput, response: destinationView,
    handler: (ctx, { params, body }) => rotateSigningSecret(ctx, params.id, body),
  }),
  route({
    method: 'delete', path: '/v1/destinations/:id/signing-secret', tag: 'destinations', summary: 'Remove signing from a webhook destination: deliveries carry no signature headers',
    access: write, params: idParams, response: destinationView,
    handler: (ctx, { params }) => clearSigningSecret(ctx, params.id),
  }),
];
