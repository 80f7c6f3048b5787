import { pageSchema } from '../common/pagination';
import { idParams, route } from '../http/route';
import { getEvent, listEvents, listEventsQuery, replayEvent, replayResultView } from './event.service';
import { eventDetailView, eventListItemView } from './event.view';

export const eventRoutes = [
  route({
    method: 'get', path: '/v1/events', tag: 'events',
    summary: 'List events, newest first, with their deliveries\' outcome; filtered by endpoint, destination, status, outcome, response class, event type (exact or prefix) and time range (items without payload and headers)',
    access: { scope: 'project', permission: 'read' }, query: listEventsQuery, response: pageSchema(eventListItemView),
    handler: (ctx, { query }) => listEvents(ctx, query),
  }),
  route({
    method: 'get', path: '/v1/events/:id', tag: 'events', summary: 'Get an event with its payload and headers',
    access: { scope: 'project', permission: 'read' }, params: idParams, response: eventDetailView,
    handler: (ctx, { params }) => getEvent(ctx, params.id),
  }),
  route({
    method: 'post', path: '/v1/events/:id/replay', tag: 'events',
    summary: 'Replay an event to every destination linked to its endpoint now (new deliveries; attempts count from 1)',
    access: { scope: 'project', permission: 'write' }, params: idParams, response: replayResultView, status: 202,
    handler: (ctx, { params }) => replayEvent(ctx, params.id),
  }),
];
