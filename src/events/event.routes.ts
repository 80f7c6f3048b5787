import { pageSchema } from '../common/pagination';
import { idParams, route } from '../http/route';
import { getEvent, listEvents, listEventsQuery, replayEvent, replayResultView } from './event.service';
import { eventSummaryView, eventView } from './event.view';

export const eventRoutes = [
  route({
    method: 'get', path: '/v1/events', tag: 'events',
    summary: 'List events, newest first, filtered by endpoint, destination, status, event type and time range (items without payload and headers)',
    access: { scope: 'project', permission: 'read' }, query: listEventsQuery, response: pageSchema(eventSummaryView),
    handler: (ctx, { query }) => listEvents(ctx, query),
  }),
  route({
    method: 'get', path: '/v1/events/:id', tag: 'events', summary: 'Get an event with its payload and headers',
    access: { scope: 'project', permission: 'read' }, params: idParams, response: eventView,
    handler: (ctx, { params }) => getEvent(ctx, params.id),
  }),
  route({
    method: 'post', path: '/v1/events/:id/replay', tag: 'events',
    summary: 'Replay an event to every destination linked to its endpoint now (new deliveries; attempts count from 1)',
    access: { scope: 'project', permission: 'write' }, params: idParams, response: replayResultView, status: 202,
    handler: (ctx, { params }) => replayEvent(ctx, params.id),
  }),
];
