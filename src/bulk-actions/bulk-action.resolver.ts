import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { ProjectContext } from '../common/request-context';
import { snakeKeys } from '../common/validation';
import { DeliveryType } from '../deliveries/delivery.resolver';
import { toDeliveryView } from '../deliveries/delivery.view';
import { Scoped } from '../graphql/scoped';
import { type BulkActionView, forceRetryDelivery, getBulkAction, MAX_TARGETS, previewBulkAction, startBulkAction } from './bulk-action.service';

@InputType()
class BulkFilterInput {
  @Field(() => ID, { nullable: true }) destinationId?: string;
  @Field(() => ID, { nullable: true }) endpointId?: string;
  @Field({ nullable: true, description: 'Retry: default failed. Cancel: always the pending ones (queued, retrying).' }) status?: string;
  @Field({ nullable: true, description: 'Exact event type.' }) eventType?: string;
  @Field({ nullable: true }) eventTypePrefix?: string;
  @Field({ nullable: true, description: "ISO 8601, inclusive (the delivery's created_at)." }) createdAfter?: string;
  @Field({ nullable: true, description: 'ISO 8601, exclusive.' }) createdBefore?: string;
  @Field(() => ID, { nullable: true, description: "The deliveries an issue affected; retry's default status is then failed and retrying." }) issueId?: string;
}

@InputType()
class BulkPreviewInput {
  @Field({ description: 'retry or cancel.' }) kind!: string;
  @Field(() => BulkFilterInput, { nullable: true }) filter?: BulkFilterInput;
}

@InputType()
class BulkActionInput extends BulkPreviewInput {
  @Field({ description: 'A key per user intent: the same key returns the action already started.' }) idempotencyKey!: string;
}

@ObjectType('BulkPreview')
class BulkPreviewType {
  @Field(() => Int, { description: 'Deliveries the action would touch now.' }) count!: number;
  @Field(() => Int) max!: number;
}

@ObjectType('BulkAction')
export class BulkActionType implements BulkActionView {
  @Field(() => ID) id!: string;
  @Field(() => String) kind!: BulkActionView['kind'];
  @Field(() => GraphQLJSONObject, { description: 'The filter, snake_case as in REST.' }) filter!: BulkActionView['filter'];
  @Field({ name: 'idempotencyKey' }) idempotency_key!: string;
  @Field(() => String, { description: 'running, completed, or stopped: its creator no longer may retry or cancel (stoppedReason); reading it does not resume it.' })
  status!: BulkActionView['status'];
  @Field(() => String, { name: 'stoppedReason', nullable: true, description: 'Why a stopped action stopped.' }) stopped_reason!: string | null;
  @Field(() => Int) total!: number;
  @Field(() => Int, { description: 'Targets handled so far.' }) done!: number;
  @Field(() => Int, { description: 'Targets retried or canceled (the rest were no longer current or cancelable).' }) applied!: number;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

/** GraphQL input to the REST wire form (the filter is nested). */
function wire(input: BulkPreviewInput | BulkActionInput): Record<string, unknown> {
  return { ...snakeKeys(input), filter: input.filter ? snakeKeys(input.filter) : undefined };
}

@Resolver()
export class BulkActionResolver {
  @Query(() => BulkPreviewType, { description: `How many deliveries a bulk retry or cancel would touch now (at most ${MAX_TARGETS}).` })
  previewBulkAction(
    @Arg('input', () => BulkPreviewInput) input: BulkPreviewInput,
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<BulkPreviewType> {
    return previewBulkAction(ctx, wire(input));
  }

  @Mutation(() => BulkActionType, { description: 'Starts a bulk retry or cancel; the same idempotencyKey returns the action already started.' })
  startBulkAction(
    @Arg('input', () => BulkActionInput) input: BulkActionInput,
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<BulkActionType> {
    return startBulkAction(ctx, wire(input));
  }

  @Query(() => BulkActionType, { description: 'A bulk action and its progress.' })
  bulkAction(
    @Arg('id', () => ID) id: string,
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<BulkActionType> {
    return getBulkAction(ctx, id);
  }

  @Mutation(() => DeliveryType, { description: 'Force-retry a delivery whatever its status (a successful one included): a new delivery of its event to its destination.' })
  async forceRetryDelivery(
    @Arg('id', () => ID) id: string,
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
    @Arg('projectId', () => ID, { nullable: true }) _projectId?: string,
  ): Promise<DeliveryType> {
    return toDeliveryView(await forceRetryDelivery(ctx, id), ctx.container.config);
  }
}
