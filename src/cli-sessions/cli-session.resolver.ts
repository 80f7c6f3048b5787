import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver, Root, Subscription } from 'type-graphql';
import type { SubscribeResolverData } from 'type-graphql';
import type { ProjectContext } from '../common/request-context';
import type { FilterOperator } from '../common/types';
import { parseInput } from '../common/validation';
import { DeliveryType } from '../deliveries/delivery.resolver';
import { toDeliveryView } from '../deliveries/delivery.view';
import { DestinationType } from '../destinations/destination.resolver';
import { EndpointType } from '../endpoints/endpoint.resolver';
import type { GraphQLContext } from '../graphql/context';
import { Scoped } from '../graphql/scoped';
import type { SignatureScheme } from '../sending/signature';
import { authorizeSubscription } from '../subscriptions/subscription-access';
import {
  authorizeCliForwards,
  cliForwardResultInput,
  type CliSessionView,
  missedCliEvents,
  missedCliEventsInput,
  replayCliEvent,
  reportCliForward,
  startCliSession,
  startCliSessionInput,
  updateCliSession,
  updateCliSessionInput,
} from './cli-session.service';
import { CliTunnel, type CliForwardView } from './cli-tunnel';
import { triggerEvent, triggerEventInput } from './cli-trigger.service';

@InputType({ description: '`relay trigger`: a source and a body (or an eventId to send again).' })
class TriggerEventInput {
  @Field(() => String, { nullable: true, description: 'The source (endpoint slug); default with eventId: that event’s source.' }) source?: string | null;
  @Field(() => String, { nullable: true, description: 'The exact body (JSON text); default: the stored event’s, else a small sample.' }) body?: string | null;
  @Field(() => String, { nullable: true, description: 'Sent as X-Event-Type (the source’s own typing rules come first).' }) eventType?: string | null;
  @Field(() => GraphQLJSON, { nullable: true, description: 'Extra request headers (name → value).' }) headers?: Record<string, string> | null;
  @Field(() => ID, { nullable: true, description: 'Send this stored event’s body and headers again, as a new event.' }) eventId?: string | null;
}

@ObjectType('TriggeredEvent')
class TriggeredEventType {
  @Field(() => ID) eventId!: string;
}

@InputType('CliFilterInput', { description: 'One `--filter`: `field` header.<Name> or body.<dot.path>; operator eq, neq, contains, not_contains, exists, not_exists, regex.' })
class CliFilterInput {
  @Field() field!: string;
  @Field() operator!: string;
  @Field(() => String, { nullable: true }) value?: string | null;
}

@ObjectType('CliFilter', { description: 'One `--filter` of a `listen` session: the filter operators, over the event as received.' })
class CliFilterType {
  @Field() field!: string;
  @Field(() => String) operator!: FilterOperator;
  @Field(() => String, { nullable: true }) value?: string;
}

@ObjectType('CliSession', { description: 'A `listen` session’s destination: type `cli`, created or reused by name.' })
class CliSessionType implements CliSessionView {
  @Field(() => DestinationType) destination!: DestinationType;
  @Field(() => [EndpointType], { description: 'The endpoints (sources) linked to it.' }) sources!: EndpointType[];
  @Field(() => String, { nullable: true }) transformName!: string | null;
  @Field(() => String, { nullable: true }) templateName!: string | null;
  @Field(() => Int) delayMs!: number;
  @Field(() => [String], { description: 'Only these event types get a delivery (the destination’s event_types); empty: every type.' }) eventTypes!: string[];
  @Field(() => [CliFilterType], { description: 'Conditions (AND) an event must match to be forwarded; others end `skipped` without crossing the tunnel.' })
  filters!: CliFilterType[];
  @Field({ description: 'Every forward carries the webhook signature headers made with this secret; created once per `cli` destination and kept across sessions (`relay listen --print-secret`).' })
  signingSecret!: string;
  @Field(() => String, { description: 'service (X-{prefix}-Signature) or standard (Standard Webhooks: webhook-id, webhook-timestamp, webhook-signature); kept across sessions until changed.' })
  signatureScheme!: SignatureScheme;
}

@ObjectType('CliForward', { description: 'One event for the CLI to POST to its local port; answer with reportCliForward.' })
class CliForwardType implements CliForwardView {
  @Field(() => ID, { description: 'Report it back in reportCliForward.' }) id!: string;
  @Field(() => ID) eventId!: string;
  @Field(() => ID) deliveryId!: string;
  @Field(() => Int) attemptNumber!: number;
  @Field() eventType!: string;
  @Field() sourceSlug!: string;
  @Field({ description: 'ISO 8601' }) receivedAt!: string;
  @Field(() => String) method!: 'POST';
  @Field(() => GraphQLJSON, { description: 'The event’s headers (hop-by-hop, host and content-length removed) plus the X-{prefix}-* headers a webhook gets.' })
  headers!: Record<string, string>;
  @Field({ description: 'The exact text to POST (the transformed JSON when a transform applies).' }) body!: string;
  @Field(() => Int, { description: 'Wait this long before POSTing (session option).' }) delayMs!: number;
}

@InputType()
class StartCliSessionInput {
  @Field({ description: 'os.hostname()' }) machine!: string;
  @Field(() => [String], { nullable: true, description: 'Empty or absent: every active endpoint of the project.' }) sourceSlugs?: string[] | null;
  @Field(() => String, { nullable: true }) transformName?: string | null;
  @Field(() => String, { nullable: true }) templateName?: string | null;
  @Field(() => Int, { nullable: true, description: '0 to 10000, default 0.' }) delayMs?: number | null;
  @Field(() => [String], { nullable: true, description: 'Only these event types (`--event-type a,b`); empty: every type.' }) eventTypes?: string[] | null;
  @Field(() => [CliFilterInput], { nullable: true, description: '`--filter`s: all must match (field, operator, value as in filter groups).' })
  filters?: CliFilterInput[] | null;
  @Field(() => String, { nullable: true, description: '`--signature-scheme`: service or standard (Standard Webhooks); absent keeps the destination’s.' })
  signatureScheme?: string | null;
}

@InputType({ description: 'Absent leaves a setting unchanged; an explicit null clears transformName or templateName.' })
class UpdateCliSessionInput {
  @Field(() => [String], { nullable: true }) sourceSlugs?: string[] | null;
  @Field(() => String, { nullable: true }) transformName?: string | null;
  @Field(() => String, { nullable: true }) templateName?: string | null;
  @Field(() => Int, { nullable: true }) delayMs?: number | null;
  @Field(() => [String], { nullable: true, description: 'Only these event types (`--event-type a,b`); empty: every type.' }) eventTypes?: string[] | null;
  @Field(() => [CliFilterInput], { nullable: true, description: '`--filter`s: all must match (field, operator, value as in filter groups).' })
  filters?: CliFilterInput[] | null;
  @Field(() => String, { nullable: true, description: '`--signature-scheme`: service or standard (Standard Webhooks); absent keeps the destination’s.' })
  signatureScheme?: string | null;
}

@InputType()
class CliForwardResultInput {
  @Field(() => ID) forwardId!: string;
  @Field(() => Int, { nullable: true, description: 'Null when the local request failed (connection refused, timeout).' }) statusCode?: number | null;
  @Field(() => GraphQLJSON, { nullable: true, description: 'Object of string to string (lower-case names).' }) responseHeaders?: unknown;
  @Field(() => String, { nullable: true, description: 'At most 64 KiB; the attempt keeps the first 4096 bytes.' }) responseBody?: string | null;
  @Field(() => Int) latencyMs!: number;
  @Field(() => String, { nullable: true }) error?: string | null;
  @Field(() => Boolean, { nullable: true, description: 'The CLI was paused: not forwarded (a permanent failure).' }) skipped?: boolean | null;
}

const write = { scope: 'project', permission: 'write' } as const;
const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

type Data = SubscribeResolverData<unknown, Record<string, string | undefined>, GraphQLContext>;

/** Plain objects: type-graphql hands inputs over as class instances. */
const plain = (input: object) => {
  const copy: Record<string, unknown> = { ...input };
  // A null value is no value (exists, not_exists).
  if (Array.isArray(copy.filters)) copy.filters = copy.filters.map(({ value, ...f }: CliFilterInput) => (value === null || value === undefined ? { ...f } : { ...f, value }));
  return copy;
};

@Resolver()
export class CliSessionResolver {
  @Mutation(() => CliSessionType, {
    description: 'Creates or reuses the `cli` destination named `cli:<email>@<machine>:<slugs joined by "," or *>` and links it to the sources.',
  })
  startCliSession(@Arg('input') input: StartCliSessionInput, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<CliSessionType> {
    return startCliSession(ctx, parseInput(startCliSessionInput, plain(input), 'input'));
  }

  @Mutation(() => CliSessionType)
  updateCliSession(
    @Arg('destinationId', () => ID) destinationId: string,
    @Arg('input') input: UpdateCliSessionInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<CliSessionType> {
    return updateCliSession(ctx, destinationId, parseInput(updateCliSessionInput, plain(input), 'input'));
  }

  @Mutation(() => Boolean, { description: 'The CLI’s answer to one forward, recorded as that delivery’s attempt. True when it was still awaited.' })
  reportCliForward(@Arg('input') input: CliForwardResultInput, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<boolean> {
    return reportCliForward(ctx, parseInput(cliForwardResultInput, plain(input), 'input'));
  }

  @Mutation(() => TriggeredEventType, {
    description: '`relay trigger`: sends an event through the source’s real ingress pipeline, signed with its secret (X-Hub-Signature-256); the stored event’s id.',
  })
  async triggerEvent(@Arg('input') input: TriggerEventInput, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<TriggeredEventType> {
    const { event_id } = await triggerEvent(ctx, parseInput(triggerEventInput, plain(input), 'input'));
    return { eventId: event_id };
  }

  @Query(() => [ID], {
    description:
      'The events (ids, oldest first, at most 1000) whose delivery to this CLI destination ended skipped because no CLI was connected, since a CLI last received one before the current connection (a `listen` that starts again after q or kill -9, or reconnects). Not those its filters left out, nor those forwarded since.',
  })
  cliMissedEvents(
    @Arg('destinationId', () => ID) destinationId: string,
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
    @Arg('since', () => String, { nullable: true, description: 'ISO 8601 date-time: only skips at or after it (optional).' }) since?: string | null,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<string[]> {
    return missedCliEvents(ctx, destinationId, parseInput(missedCliEventsInput, { since }));
  }

  @Mutation(() => DeliveryType, { description: '`r` in the CLI: a new delivery of the event to this CLI destination only (other destinations untouched).' })
  async replayCliEvent(
    @Arg('destinationId', () => ID) destinationId: string,
    @Arg('eventId', () => ID) eventId: string,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<DeliveryType> {
    return toDeliveryView(await replayCliEvent(ctx, destinationId, eventId), ctx.container.config);
  }

  @Subscription(() => CliForwardType, {
    description: 'Open while `relay listen` runs: being subscribed IS being connected. Forwards for that destination arrive here.',
    subscribe: async (data: Data) => {
      const ctx = await authorizeSubscription(data);
      const destinationId = data.args.destinationId ?? '';
      await authorizeCliForwards(ctx, destinationId);
      return CliTunnel.for(ctx.container).open(destinationId);
    },
  })
  cliForwards(
    @Root() forward: CliForwardView,
    @Arg('destinationId', () => ID) _destinationId: string,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): CliForwardView {
    return forward;
  }
}
