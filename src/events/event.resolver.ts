import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Args, ArgsType, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { ProjectContext } from '../common/request-context';
import { parseInput, snakeKeys } from '../common/validation';
import { deliveriesByEventIds } from '../deliveries/delivery-query.service';
import { DeliveryType } from '../deliveries/delivery.resolver';
import type { DeliveryView } from '../deliveries/delivery.view';
import { EndpointType } from '../endpoints/endpoint.resolver';
import type { EndpointView } from '../endpoints/endpoint.view';
import type { GraphQLContext } from '../graphql/context';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import { endpointsByIds, getEvent, listEventsQuery, listEventsWithBody, replayEvent, type ReplayResult } from './event.service';
import type { EventView } from './event.view';
import { EVENT_OUTCOMES, type EventOutcomeView, outcomesByEventIds, RESPONSE_CLASSES } from './event-outcome';

/** GraphQL shape of EventView: camelCase names over the same view the REST API returns. */
@ObjectType('Event')
export class EventType implements EventView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'endpointId' }) endpoint_id!: string;
  @Field(() => ID, { name: 'projectId' }) project_id!: string;
  @Field(() => ID, { name: 'organizationId' }) organization_id!: string;
  @Field({ name: 'eventType', description: 'Empty when no rule yielded a type.' }) event_type!: string;
  @Field(() => GraphQLJSON, { nullable: true, description: 'The JSON request body as received.' }) payload!: unknown;
  @Field(() => GraphQLJSONObject, { description: 'All request headers.' }) headers!: Record<string, string>;
  @Field(() => String, { name: 'sourceIp', nullable: true }) source_ip!: string | null;
  @Field(() => String, { name: 'idempotencyKey', nullable: true }) idempotency_key!: string | null;
  @Field(() => String, { description: 'received or filtered.' }) status!: EventView['status'];
  @Field(() => String, { name: 'quarantinedAt', nullable: true, description: 'Set when the pipeline could not process the event and set it aside undelivered.' }) quarantined_at!: string | null;
  @Field(() => String, { name: 'quarantineReason', nullable: true, description: "Why the event was quarantined (the database's error)." }) quarantine_reason!: string | null;
  @Field({ name: 'createdAt' }) created_at!: string;
}

@ObjectType('EventDestinationRef')
class EventDestinationRef {
  @Field(() => ID) id!: string;
  @Field() name!: string;
}

@ObjectType()
class EventPage extends PageOf(EventType) {}

@ObjectType('EventReplay')
class ReplayResultType implements ReplayResult {
  @Field(() => ID, { name: 'eventId' }) event_id!: string;
  @Field(() => [DeliveryType], { description: 'The new deliveries.' }) deliveries!: DeliveryView[];
}

@ArgsType()
class EventFilterArgs extends PageArgs {
  @Field(() => ID, { nullable: true }) endpointId?: string;
  @Field(() => ID, { nullable: true, description: 'Only events with a delivery to this destination.' }) destinationId?: string;
  @Field({ nullable: true, description: 'received or filtered.' }) status?: string;
  @Field({ nullable: true, description: 'Exact event type.' }) eventType?: string;
  @Field({ nullable: true, description: 'Event types starting with this text.' }) eventTypePrefix?: string;
  @Field({ nullable: true, description: `The deliveries' outcome summarised: ${EVENT_OUTCOMES.join(', ')}.` }) outcome?: string;
  @Field({ nullable: true, description: `A current delivery's last attempt answered in this class: ${RESPONSE_CLASSES.join(', ')} (none: no HTTP response).` }) responseClass?: string;
  @Field({ nullable: true, description: 'ISO 8601, inclusive.' }) createdAfter?: string;
  @Field({ nullable: true, description: 'ISO 8601, exclusive.' }) createdBefore?: string;
  @Field({ nullable: true, description: 'JSON text of an object or array the payload contains (jsonb @>), e.g. {"repository":{"name":"relay"}}.' }) contains?: string;
  @Field({ nullable: true, description: 'Text (3 characters or more) found in the payload as stored or in a header value; case-insensitive.' }) q?: string;
}

function outcomeOf(event: EventView, { ctx, loaders }: GraphQLContext): Promise<EventOutcomeView> {
  return loaders.get(`eventOutcomes:${event.project_id}`, (ids) => outcomesByEventIds(ctx.em, event.project_id, ids)).load(event.id);
}

@Resolver(() => EventType)
export class EventResolver {
  @Query(() => EventPage, { description: 'Events of the project, newest first.' })
  events(
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
    @Args() args: EventFilterArgs,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<EventPage> {
    return listEventsWithBody(ctx, parseInput(listEventsQuery, snakeKeys(args), 'arguments'));
  }

  @Query(() => EventType)
  event(
    @Arg('id', () => ID) id: string,
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<EventType> {
    return getEvent(ctx, id);
  }

  @Mutation(() => ReplayResultType, { description: 'Re-queues the event to every destination linked to its endpoint now.' })
  replayEvent(
    @Arg('id', () => ID) id: string,
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<ReplayResultType> {
    return replayEvent(ctx, id);
  }

  @FieldResolver(() => EndpointType, { nullable: true, description: 'The endpoint (source) that received it (batched per request).' })
  endpoint(@Root() event: EventView, @Ctx() { ctx, loaders }: GraphQLContext): Promise<EndpointView | null> {
    return loaders.get(`endpoints:${event.project_id}`, (ids) => endpointsByIds(ctx.em, ctx.container.config, event.project_id, ids)).load(event.endpoint_id);
  }

  @FieldResolver(() => String, { description: `The deliveries' outcome summarised, worst first: ${EVENT_OUTCOMES.join(', ')} (batched per request).` })
  async outcome(@Root() event: EventView, @Ctx() context: GraphQLContext): Promise<string> {
    return (await outcomeOf(event, context)).outcome;
  }

  @FieldResolver(() => EventDestinationRef, {
    name: 'outcomeDestination',
    nullable: true,
    description: 'The destination whose delivery gives the outcome: the worst current delivery, the newest among equals (null: no delivery).',
  })
  async outcomeDestination(@Root() event: EventView, @Ctx() context: GraphQLContext): Promise<EventDestinationRef | null> {
    return (await outcomeOf(event, context)).outcome_destination;
  }

  @FieldResolver(() => Int, { name: 'lastStatusCode', nullable: true, description: 'Response code of the last attempt of the outcomeDestination\'s delivery (null: none yet, or no HTTP response).' })
  async lastStatusCode(@Root() event: EventView, @Ctx() context: GraphQLContext): Promise<number | null> {
    return (await outcomeOf(event, context)).last_status_code;
  }

  @FieldResolver(() => Int, { name: 'destinationCount', description: 'How many destinations the event has a current delivery to.' })
  async destinationCount(@Root() event: EventView, @Ctx() context: GraphQLContext): Promise<number> {
    return (await outcomeOf(event, context)).destination_count;
  }

  @FieldResolver(() => [DeliveryType], { description: 'Deliveries of this event, replays included, oldest first (batched per request).' })
  deliveries(@Root() event: EventView, @Ctx() { ctx, loaders }: GraphQLContext): Promise<DeliveryView[]> {
    return loaders.get(`deliveriesByEvent:${event.project_id}`, (ids) => deliveriesByEventIds(ctx.em, ctx.container.config, event.project_id, ids)).load(event.id);
  }
}
