import { idParams, route } from '../http/route';
import { deliveryView, toDeliveryView } from '../deliveries/delivery.view';
import { bulkActionView, bulkPreviewInput, bulkPreviewView, bulkStartInput, forceRetryDelivery, getBulkAction, previewBulkAction, startBulkAction } from './bulk-action.service';

export const bulkActionRoutes = [
  route({
    method: 'post', path: '/v1/bulk-actions/preview', tag: 'deliveries',
    summary: 'Count the deliveries a bulk retry (default: failed ones) or cancel (queued and retrying ones of a destination) would touch now',
    access: { scope: 'project', permission: 'write' }, body: bulkPreviewInput, response: bulkPreviewView,
    handler: (ctx, { body }) => previewBulkAction(ctx, body),
  }),
  route({
    method: 'post', path: '/v1/bulk-actions', tag: 'deliveries',
    summary: 'Start a bulk retry or cancel (at most 10,000 deliveries); the same idempotency_key returns the action already started',
    access: { scope: 'project', permission: 'write' }, body: bulkStartInput, response: bulkActionView, status: 202,
    handler: (ctx, { body }) => startBulkAction(ctx, body),
  }),
  route({
    method: 'get', path: '/v1/bulk-actions/:id', tag: 'deliveries', summary: 'A bulk action and its progress',
    access: { scope: 'project', permission: 'read' }, params: idParams, response: bulkActionView,
    handler: (ctx, { params }) => getBulkAction(ctx, params.id),
  }),
  route({
    method: 'post', path: '/v1/deliveries/:id/force-retry', tag: 'deliveries',
    summary: "Force-retry a delivery whatever its status (a successful one included): a new delivery of its event to its destination",
    access: { scope: 'project', permission: 'write' }, params: idParams, response: deliveryView, status: 202,
    handler: async (ctx, { params }) => toDeliveryView(await forceRetryDelivery(ctx, params.id), ctx.container.config),
  }),
];
