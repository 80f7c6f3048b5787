import { Arg, Args, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { paginationQuery } from '../common/pagination';
import type { ProjectContext, RequestContext } from '../common/request-context';
import type { DestinationType as DestinationKind } from '../common/types';
import { parseInput, snakeKeys } from '../common/validation';
import type { SignatureScheme } from '../sending/signature';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import type { ApiDestinationType, DestinationPlatformView } from './destination-platforms';
import { rotateDestinationSecretInput } from './destination-secret.service';
import {
  clearSigningSecret,
  createDestination,
  createDestinationInput,
  deleteDestination,
  getDestination,
  listDestinationPlatforms,
  listDestinations,
  rotateSigningSecret,
  updateDestination,
  updateDestinationInput,
} from './destination.service';
import type { CircuitView, DestinationView } from './destination.view';

@ObjectType('RetryPolicy')
class RetryPolicyType {
  @Field(() => Int, { name: 'maxAttempts', description: 'Total attempts, including the first.' }) max_attempts!: number;
  @Field(() => [Int], { description: 'Seconds between attempts; the last value repeats.' }) backoff!: number[];
}

@ObjectType('DestinationCircuit', { description: 'The destination’s circuit breaker (docs/delivery.md).' })
class DestinationCircuitType implements CircuitView {
  @Field(() => String, { description: 'closed, open (attempts deferred until a probe gets an answer) or half_open (the probe is in flight)' })
  state!: CircuitView['state'];
  @Field(() => Int, { name: 'consecutiveFailures', description: 'Connection errors and timeouts in a row.' }) consecutive_failures!: number;
  @Field(() => String, { name: 'openedAt', nullable: true }) opened_at!: string | null;
  @Field(() => String, { name: 'nextProbeAt', nullable: true }) next_probe_at!: string | null;
  @Field(() => String, { name: 'lastError', nullable: true }) last_error!: string | null;
}

/** GraphQL shape of DestinationView: secrets are never fields, only whether they are set. */
@ObjectType('Destination')
export class DestinationType implements DestinationView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'projectId' }) project_id!: string;
  @Field() name!: string;
  @Field(() => String, { description: 'chat_b, chat_a, chat_c, webhook or cli' }) type!: DestinationKind;
  @Field(() => String, { name: 'webhookHost', nullable: true }) webhook_host!: string | null;
  @Field({ name: 'hasWebhookUrl' }) has_webhook_url!: boolean;
  @Field({ name: 'hasBotToken' }) has_bot_token!: boolean;
  @Field(() => String, { name: 'signingSecret', nullable: true, description: 'Only in the answer that generated it.' }) signing_secret!: string | null;
  @Field({ name: 'hasSigningSecret' }) has_signing_secret!: boolean;
  @Field(() => String, {
    name: 'signatureScheme',
    description: 'service: X-{prefix}-Timestamp and X-{prefix}-Signature; standard: Standard Webhooks (webhook-id, webhook-timestamp, webhook-signature).',
  })
  signature_scheme!: SignatureScheme;
  @Field(() => String, { name: 'previousSecretExpiresAt', nullable: true }) previous_secret_expires_at!: string | null;
  @Field(() => String, { name: 'guildId', nullable: true }) guild_id!: string | null;
  @Field(() => String, { name: 'channelId', nullable: true }) channel_id!: string | null;
  @Field(() => RetryPolicyType, { name: 'retryPolicy' }) retry_policy!: RetryPolicyType;
  @Field(() => [String], { name: 'eventTypes' }) event_types!: string[];
  @Field({ name: 'isActive' }) is_active!: boolean;
  @Field(() => String, { name: 'pausedReason', nullable: true, description: 'Why it is paused: user, or receiver_gone (it answered 410 Gone); null while active.' })
  paused_reason!: DestinationView['paused_reason'];
  @Field(() => String, { name: 'pausedAt', nullable: true }) paused_at!: string | null;
  @Field(() => Int, { name: 'maxConcurrency', nullable: true, description: 'Attempts in flight at once across all workers; null: the service default.' })
  max_concurrency!: number | null;
  @Field(() => DestinationCircuitType) circuit!: DestinationCircuitType;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType('DestinationPlatform', { description: 'A destination type: what its receiver gets, and whether this server is configured to send it.' })
class DestinationPlatformType implements DestinationPlatformView {
  @Field(() => String, { description: 'webhook, chat_a, chat_b or chat_c' }) type!: ApiDestinationType;
  @Field({ description: 'What the receiver gets.' }) description!: string;
  @Field({ description: 'A destination of this type can be created on this server.' }) available!: boolean;
  @Field({ description: 'Every way this type sends works on this server.' }) configured!: boolean;
  @Field(() => String, { nullable: true, description: 'The server setting bot-token sends need; null: the type needs none.' }) setting!: string | null;
  @Field(() => String, { nullable: true, description: 'What does not work here, naming the setting; null when configured.' }) reason!: string | null;
}

@ObjectType()
class DestinationPage extends PageOf(DestinationType) {}

@InputType()
class RetryPolicyInput {
  @Field(() => Int) maxAttempts!: number;
  @Field(() => [Int]) backoff!: number[];
}

@InputType()
class DestinationInput {
  @Field({ nullable: true }) name?: string;
  @Field({ nullable: true, description: 'Create only: chat_b, chat_a, chat_c or webhook.' }) type?: string;
  @Field(() => String, { nullable: true, description: 'Write-only; null removes it.' }) webhookUrl?: string | null;
  @Field(() => String, { nullable: true, description: 'Write-only; null removes it.' }) botToken?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Webhook only; write-only. Create: absent generates one (returned once in signingSecret), null means unsigned. Update: null removes it.',
  })
  signingSecret?: string | null;
  @Field(() => String, {
    nullable: true,
    description: 'Webhook only: service (default) or standard (Standard Webhooks, whsec_ secrets). A change cuts over at once; a secret the new scheme cannot use is replaced by a generated one (returned once in signingSecret).',
  })
  signatureScheme?: string;
  @Field(() => String, { nullable: true }) guildId?: string | null;
  @Field(() => String, { nullable: true }) channelId?: string | null;
  @Field(() => RetryPolicyInput, { nullable: true }) retryPolicy?: RetryPolicyInput;
  @Field(() => [String], { nullable: true }) eventTypes?: string[];
  @Field({ nullable: true }) isActive?: boolean;
  @Field(() => Int, { nullable: true, description: '1 to 1000; null: the service default (RELAY_DESTINATION_MAX_CONCURRENCY).' }) maxConcurrency?: number | null;
}

@InputType()
class RotateDestinationSecretInput {
  @Field() signingSecret!: string;
  @Field(() => Int, { nullable: true }) overlapSeconds?: number;
}

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

function toInput({ retryPolicy, ...rest }: DestinationInput): Record<string, unknown> {
  return snakeKeys({ ...rest, retryPolicy: retryPolicy && { max_attempts: retryPolicy.maxAttempts, backoff: retryPolicy.backoff } });
}

@Resolver(() => DestinationType)
export class DestinationResolver {
  @Query(() => DestinationPage)
  destinations(@Scoped(read) ctx: ProjectContext, @Args() page: PageArgs, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<DestinationPage> {
    return listDestinations(ctx, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => [DestinationPlatformType], { description: 'What each destination type sends, and whether this server is configured to send it.' })
  destinationPlatforms(@Scoped({ scope: 'authenticated' }) ctx: RequestContext): DestinationPlatformType[] {
    return listDestinationPlatforms(ctx);
  }

  @Query(() => DestinationType)
  destination(@Arg('id', () => ID) id: string, @Scoped(read) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<DestinationType> {
    return getDestination(ctx, id);
  }

  @Mutation(() => DestinationType)
  createDestination(@Arg('input') input: DestinationInput, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<DestinationType> {
    return createDestination(ctx, parseInput(createDestinationInput, toInput(input), 'input'));
  }

  @Mutation(() => DestinationType)
  updateDestination(
    @Arg('id', () => ID) id: string,
    @Arg('input') input: DestinationInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<DestinationType> {
    return updateDestination(ctx, id, parseInput(updateDestinationInput, toInput(input), 'input'));
  }

  @Mutation(() => Boolean, { description: 'Deletes the destination with its links and delivery history.' })
  async deleteDestination(@Arg('id', () => ID) id: string, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<boolean> {
    await deleteDestination(ctx, id);
    return true;
  }

  @Mutation(() => DestinationType, { description: 'Webhook and cli destinations: new secret, with an overlap (default 86400 s) during which the previous one also signs.' })
  rotateDestinationSecret(
    @Arg('id', () => ID) id: string,
    @Arg('input') input: RotateDestinationSecretInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<DestinationType> {
    return rotateSigningSecret(ctx, id, parseInput(rotateDestinationSecretInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => DestinationType, { description: 'Webhook destinations: removes signing, deliveries carry no signature headers (a cli destination is always signed).' })
  clearDestinationSecret(@Arg('id', () => ID) id: string, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<DestinationType> {
    return clearSigningSecret(ctx, id);
  }
}
