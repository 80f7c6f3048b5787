import { z } from 'zod';
import { pageSchema } from '../common/pagination';
import { idParams, route } from '../http/route';
import { cancelAttempt, cancelDelivery, replayDeadLetters, replayDeadLettersInput } from './delivery-operations.service';
import {
  getDelivery,
  listAttempts,
  listAttemptsQuery,
  listDeadLetters,
  listDeadLettersQuery,
  listDeliveries,
  listDeliveriesQuery,
} from './delivery-query.service';
import { attemptView, deliveryView, toDeliveryView } from './delivery.view';

const replayedView = z.object({ deliveries: z.array(deliveryView).describe('The new deliveries, one per replayed dead letter') });

export const deliveryRoutes = [
  route({
    method: 'get', path: '/v1/deliveries', tag: 'deliveries', summary: 'List deliveries by event, destination, endpoint, status and time range',
    access: { scope: 'project', permission: 'read' }, query: listDeliveriesQuery, response: pageSchema(deliveryView),
    handler: (ctx, { query }) => listDeliveries(ctx, query),
  }),
  route({
    method: 'get', path: '/v1/deliveries/:id', tag: 'deliveries', summary: 'Get a delivery',
    access: { scope: 'project', permission: 'read' }, params: idParams, response: deliveryView,
    handler: (ctx, { params }) => getDelivery(ctx, params.id),
  }),
  route({
    method: 'post', path: '/v1/deliveries/:id/cancel', tag: 'deliveries',
    summary: 'Cancel a queued or retrying delivery (its last attempt becomes canceled); 409 when it already finished',
    access: { scope: 'project', permission: 'write' }, params: idParams, response: deliveryView,
    handler: async (ctx, { params }) => toDeliveryView(await cancelDelivery(ctx, params.id), ctx.container.config),
  }),
  route({
    method: 'get', path: '/v1/attempts', tag: 'deliveries',
    summary: 'List delivery attempts by event, delivery, destination, endpoint, status, event type and time range',
    access: { scope: 'project', permission: 'read' }, query: listAttemptsQuery, response: pageSchema(attemptView),
    handler: (ctx, { query }) => listAttempts(ctx, query),
  }),
  route({
    method: 'post', path: '/v1/attempts/:id/cancel', tag: 'deliveries', summary: 'Cancel the delivery this attempt belongs to',
    access: { scope: 'project', permission: 'write' }, params: idParams, response: deliveryView,
    handler: async (ctx, { params }) => toDeliveryView(await cancelAttempt(ctx, params.id), ctx.container.config),
  }),
  route({
    method: 'get', path: '/v1/dead-letters', tag: 'deliveries', summary: 'The dead-letter queue: failed deliveries not yet replayed, newest first',
    access: { scope: 'project', permission: 'read' }, query: listDeadLettersQuery, response: pageSchema(deliveryView),
    handler: (ctx, { query }) => listDeadLetters(ctx, query),
  }),
  route({
    method: 'post', path: '/v1/dead-letters/replay', tag: 'deliveries',
    summary: 'Replay up to 100 dead-lettered deliveries (all or nothing); each gets a new delivery and leaves the queue',
    access: { scope: 'project', permission: 'write' }, body: replayDeadLettersInput, response: replayedView, status: 202,
    handler: async (ctx, { body }) => ({ deliveries: (await replayDeadLetters(ctx, body)).map((d) => toDeliveryView(d, ctx.container.config)) }),
  }),
  route({
    method: 'post', path: '/v1/dead-letters/:id/replay', tag: 'deliveries', summary: 'Replay one dead-lettered delivery',
    access: { scope: 'project', permission: 'write' }, params: idParams, response: replayedView, status: 202,
    handler: async (ctx, { params }) => ({ deliveries: (await replayDeadLetters(ctx, { delivery_ids: [params.id] })).map((d) => toDeliveryView(d, ctx.container.config)) }),
  }),
];
