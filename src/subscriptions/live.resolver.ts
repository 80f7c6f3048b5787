import { Arg, Ctx, ID, Resolver, Root, Subscription } from 'type-graphql';
import type { SubscribeResolverData } from 'type-graphql';
import { NotFoundError } from '../common/errors';
import { isUuid } from '../common/ids';
import type { ProjectContext } from '../common/request-context';
import { DeliveryAttemptType } from '../deliveries/delivery.resolver';
import type { AttemptView } from '../deliveries/delivery.view';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { Event } from '../events/event.entity';
import { EventType } from '../events/event.resolver';
import type { EventView } from '../events/event.view';
import type { GraphQLContext } from '../graphql/context';
import { Destination } from '../destinations/destination.entity';
import { LiveFeed } from './live-feed';
import { authorizeSubscription } from './subscription-access';

type Data = SubscribeResolverData<unknown, Record<string, string | undefined>, GraphQLContext>;

/** A filter id must name a row of the authorized project; anything else is a 404, as in queries. */
async function requireInProject(ctx: ProjectContext, entity: typeof WebhookEndpoint | typeof Destination | typeof Event, label: string, id?: string): Promise<void> {
  if (id === undefined) return;
  const where = entity === Event ? { id, projectId: ctx.project.id } : { id, project: ctx.project.id };
  if (!isUuid(id) || !(await ctx.em.count(entity, where as never))) throw new NotFoundError(label, id);
}

/** Each payload is fresh: nested fields must not come from the caches of earlier payloads. */
function freshPayload<T>(context: GraphQLContext, payload: T): T {
  context.loaders.clear();
  context.ctx.em.clear();
  return payload;
}

@Resolver()
export class LiveResolver {
  @Subscription(() => EventType, {
    description: 'Events as they are received (filtered ones included), for one project and optionally one endpoint.',
    subscribe: async (data: Data) => {
      const ctx = await authorizeSubscription(data);
      await requireInProject(ctx, WebhookEndpoint, 'Endpoint', data.args.endpointId);
      return LiveFeed.for(ctx.container).subscribeEvents({ projectId: ctx.project.id, endpointId: data.args.endpointId });
    },
  })
  eventReceived(
    @Root() event: EventView,
    @Ctx() context: GraphQLContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
    @Arg('endpointId', () => ID, { nullable: true }) _endpointId?: string,
  ): EventView {
    return freshPayload(context, event);
  }

  @Subscription(() => DeliveryAttemptType, {
    description: 'Delivery attempts as they are recorded or change (e.g. canceled), optionally for one event and/or destination.',
    subscribe: async (data: Data) => {
      const ctx = await authorizeSubscription(data);
      await requireInProject(ctx, Event, 'Event', data.args.eventId);
      await requireInProject(ctx, Destination, 'Destination', data.args.destinationId);
      return LiveFeed.for(ctx.container).subscribeAttempts({ projectId: ctx.project.id, eventId: data.args.eventId, destinationId: data.args.destinationId });
    },
  })
  deliveryAttemptUpdated(
    @Root() attempt: AttemptView,
    @Ctx() context: GraphQLContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
    @Arg('eventId', () => ID, { nullable: true }) _eventId?: string,
    @Arg('destinationId', () => ID, { nullable: true }) _destinationId?: string,
  ): AttemptView {
    return freshPayload(context, attempt);
  }
}
