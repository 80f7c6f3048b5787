import { GraphQLJSON, GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Args, ArgsType, Ctx, Field, FieldResolver, ID, Int, Mutation, ObjectType, Query, Resolver, Root } from 'type-graphql';
import type { ProjectContext } from '../common/request-context';
import { DestinationType } from '../destinations/destination.resolver';
import type { DestinationView } from '../destinations/destination.view';
import { parseInput, snakeKeys } from '../common/validation';
import type { GraphQLContext } from '../graphql/context';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import { cancelAttempt, cancelDelivery, replayDeadLetters } from './delivery-operations.service';
import {
  attemptsByDeliveryIds,
  destinationsByIds,
  getDelivery,
  listAttempts,
  listAttemptsQuery,
  listDeadLetters,
  listDeadLettersQuery,
  listDeliveries,
  listDeliveriesQuery,
} from './delivery-query.service';
import { type AttemptView, type DeliveryView, toDeliveryView } from './delivery.view';

/** GraphQL shapes over the same snake_case views the REST API returns. */
@ObjectType('DeliveryAttempt')
export class DeliveryAttemptType implements AttemptView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'deliveryId', description: 'The delivery (and so the replay) this attempt belongs to.' }) delivery_id!: string;
  @Field(() => ID, { name: 'eventId' }) event_id!: string;
  @Field(() => ID, { name: 'destinationId' }) destination_id!: string;
  @Field(() => Int, { name: 'attemptNumber', description: '1-based within its delivery.' }) attempt_number!: number;
  @Field(() => String, {
    description: 'queued, retrying, success, failed, canceled, skipped, or rate_limited (the answer was waited out, not counted towards maxAttempts).',
  })
  status!: AttemptView['status'];
  @Field(() => Int, { name: 'statusCode', nullable: true }) status_code!: number | null;
  @Field(() => String, { name: 'responseBody', nullable: true, description: 'First 4096 bytes of the response.' }) response_body!: string | null;
  @Field({ name: 'responseBodyTruncated' }) response_body_truncated!: boolean;
  @Field(() => GraphQLJSONObject, { name: 'responseHeaders', nullable: true }) response_headers!: Record<string, string> | null;
  @Field(() => String, { nullable: true }) error!: string | null;
  @Field(() => Int, { name: 'latencyMs', nullable: true }) latency_ms!: number | null;
  @Field(() => String, { name: 'nextRetryAt', nullable: true }) next_retry_at!: string | null;
  @Field(() => GraphQLJSON, { name: 'payloadSent', nullable: true }) payload_sent!: unknown;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType('Delivery')
export class DeliveryType implements DeliveryView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'eventId' }) event_id!: string;
  @Field(() => ID, { name: 'destinationId' }) destination_id!: string;
  @Field(() => ID, { name: 'endpointId' }) endpoint_id!: string;
  @Field(() => ID, { name: 'projectId' }) project_id!: string;
  @Field(() => String, { description: 'queued, retrying, success, failed or canceled.' }) status!: DeliveryView['status'];
  @Field(() => Int, { name: 'attemptCount' }) attempt_count!: number;
  @Field(() => String, { name: 'nextRetryAt', nullable: true }) next_retry_at!: string | null;
  @Field(() => ID, { name: 'replayOfId', nullable: true, description: 'The delivery this one replays.' }) replay_of_id!: string | null;
  @Field(() => String, { name: 'deadLetteredAt', nullable: true }) dead_lettered_at!: string | null;
  @Field(() => String, { name: 'completedAt', nullable: true }) completed_at!: string | null;
  @Field({ name: 'workflowId', description: 'The Temporal workflow that runs this delivery (`delivery-<id>`).' }) workflow_id!: string;
  @Field(() => String, { name: 'workflowUrl', nullable: true, description: "The workflow's page in the Temporal web UI; null when the service does not know the UI's address (TEMPORAL_UI_URL)." })
  workflow_url!: string | null;
  @Field(() => String, { nullable: true, description: 'What the relay did to this delivery outside its attempts: its Temporal workflow ended without recording an outcome (the delivery was then dead-lettered or canceled), or was lost and started again with its attempts kept; null when nothing.' }) note!: string | null;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType()
class DeliveryPage extends PageOf(DeliveryType) {}

@ObjectType()
class DeliveryAttemptPage extends PageOf(DeliveryAttemptType) {}

@ArgsType()
class DeliveryFilterArgs extends PageArgs {
  @Field(() => ID, { nullable: true }) eventId?: string;
  @Field(() => ID, { nullable: true }) destinationId?: string;
  @Field(() => ID, { nullable: true }) endpointId?: string;
  @Field({ nullable: true }) status?: string;
  @Field({ nullable: true, description: 'ISO 8601, inclusive.' }) createdAfter?: string;
  @Field({ nullable: true, description: 'ISO 8601, exclusive.' }) createdBefore?: string;
}

@ArgsType()
class AttemptFilterArgs extends DeliveryFilterArgs {
  @Field(() => ID, { nullable: true }) deliveryId?: string;
  @Field({ nullable: true }) eventType?: string;
}

@ArgsType()
class DeadLetterArgs extends PageArgs {
  @Field(() => ID, { nullable: true }) destinationId?: string;
  @Field(() => ID, { nullable: true }) endpointId?: string;
}

@Resolver(() => DeliveryType)
export class DeliveryResolver {
  @Query(() => DeliveryPage, { description: 'Deliveries of the project, newest first.' })
  deliveries(
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
    @Args() args: DeliveryFilterArgs,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<DeliveryPage> {
    return listDeliveries(ctx, parseInput(listDeliveriesQuery, snakeKeys(args), 'arguments'));
  }

  @Query(() => DeliveryType)
  delivery(
    @Arg('id', () => ID) id: string,
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<DeliveryType> {
    return getDelivery(ctx, id);
  }

  @Query(() => DeliveryAttemptPage, { description: 'Delivery attempts, newest first.' })
  deliveryAttempts(
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
    @Args() args: AttemptFilterArgs,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<DeliveryAttemptPage> {
    return listAttempts(ctx, parseInput(listAttemptsQuery, snakeKeys(args), 'arguments'));
  }

  @Query(() => DeliveryPage, { description: 'The dead-letter queue: failed deliveries not yet replayed, newest first.' })
  deadLetters(
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
    @Args() args: DeadLetterArgs,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<DeliveryPage> {
    return listDeadLetters(ctx, parseInput(listDeadLettersQuery, snakeKeys(args), 'arguments'));
  }

  @Mutation(() => DeliveryType, { description: 'Cancels a queued or retrying delivery.' })
  async cancelDelivery(
    @Arg('id', () => ID) id: string,
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<DeliveryType> {
    return toDeliveryView(await cancelDelivery(ctx, id), ctx.container.config);
  }

  @Mutation(() => DeliveryType, { description: 'Cancels the delivery the attempt belongs to.' })
  async cancelDeliveryAttempt(
    @Arg('id', () => ID) id: string,
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<DeliveryType> {
    return toDeliveryView(await cancelAttempt(ctx, id), ctx.container.config);
  }

  @Mutation(() => [DeliveryType], { description: 'Replays up to 100 dead-lettered deliveries (all or nothing); returns the new deliveries.' })
  async replayDeadLetters(
    @Arg('deliveryIds', () => [ID]) deliveryIds: string[],
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<DeliveryType[]> {
    return (await replayDeadLetters(ctx, { delivery_ids: deliveryIds })).map((d) => toDeliveryView(d, ctx.container.config));
  }

  @FieldResolver(() => DestinationType, { nullable: true, description: 'The destination (batched per request).' })
  destination(@Root() delivery: DeliveryView, @Ctx() { ctx, loaders }: GraphQLContext): Promise<DestinationView | null> {
    return loaders.get(`destinations:${delivery.project_id}`, (ids) => destinationsByIds(ctx.em, delivery.project_id, ids)).load(delivery.destination_id);
  }

  @FieldResolver(() => [DeliveryAttemptType], { description: 'Attempts of this delivery, oldest first (batched per request).' })
  attempts(@Root() delivery: DeliveryView, @Ctx() { ctx, loaders }: GraphQLContext): Promise<AttemptView[]> {
    return loaders.get(`attemptsByDelivery:${delivery.project_id}`, (ids) => attemptsByDeliveryIds(ctx.em, delivery.project_id, ids)).load(delivery.id);
  }
}
