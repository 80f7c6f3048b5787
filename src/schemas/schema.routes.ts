import { idParams, route } from '../http/route';
import { acceptEventSchema, getEventSchema, listSourceSchemas, sourceSchemasQuery } from './schema.service';
import { eventSchemaDetailView, sourceSchemasView } from './schema.view';

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;

export const schemaRoutes = [
  route({
    method: 'get', path: '/v1/endpoints/:id/schemas', tag: 'schemas',
    summary: "The source's event types, each with its inferred JSON Schema, counts and examples; its activity and silence expectation",
    access: read, params: idParams, query: sourceSchemasQuery, response: sourceSchemasView,
    handler: (ctx, { params, query }) => listSourceSchemas(ctx, params.id, query),
  }),
  route({
    method: 'get', path: '/v1/event-schemas/:id', tag: 'schemas', summary: 'One inferred schema with its paths (types, presence, first and last seen) and its drift history',
    access: read, params: idParams, response: eventSchemaDetailView,
    handler: (ctx, { params }) => getEventSchema(ctx, params.id),
  }),
  route({
    method: 'post', path: '/v1/event-schemas/:id/accept', tag: 'schemas',
    summary: 'Accept the schema’s changes: their new shape becomes the expected one, and its open schema_changed issue resolves',
    access: write, params: idParams, response: eventSchemaDetailView,
    handler: (ctx, { params }) => acceptEventSchema(ctx, params.id),
  }),
];
