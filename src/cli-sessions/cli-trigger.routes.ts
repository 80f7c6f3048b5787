import { route } from '../http/route';
import { triggerEvent, triggerEventBody, triggeredEventView } from './cli-trigger.service';

const write = { scope: 'project', permission: 'write' } as const;

/** `relay trigger` over REST: the `triggerEvent` mutation's service (docs/listen.md "Send test events"). */
export const cliTriggerRoutes = [
  route({
    method: 'post', path: '/v1/events/trigger', tag: 'events',
    summary: "Send an event through a source's real ingress pipeline, signed with its secret, or a stored event again (event_id); returns the new event's id",
    access: write, body: triggerEventBody, response: triggeredEventView, status: 201,
    handler: (ctx, { body }) =>
      triggerEvent(ctx, { source: body.source, body: body.body, eventType: body.event_type, headers: body.headers, eventId: body.event_id }),
  }),
];
