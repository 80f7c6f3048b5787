import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Args, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { paginationQuery } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import type { TypingRule } from '../common/types';
import { parseInput, snakeKeys } from '../common/validation';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import {
  createEndpoint,
  createEndpointInput,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  rotateSecret,
  updateEndpoint,
  updateEndpointInput,
} from './endpoint.service';
import type { EndpointView } from './endpoint.view';
import { sendTestEvent, type TestEventView } from './endpoint-test.service';
import { rotateEndpointSecretInput } from './endpoint-secret.service';

@ObjectType('TestEvent')
class TestEventType implements TestEventView {
  @Field(() => ID, { name: 'eventId' }) event_id!: string;
}

/** GraphQL shape of EndpointView (camelCase names over the REST view). */
@ObjectType('Endpoint')
export class EndpointType implements EndpointView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'projectId' }) project_id!: string;
  @Field() name!: string;
  @Field() slug!: string;
  @Field(() => String, { name: 'ingressUrl', nullable: true, description: 'POST webhooks here; null for the system source.' }) ingress_url!: string | null;
  @Field({ description: "The project's system source: the service emits its operational events on it (docs/alerts.md); it receives no HTTP requests." })
  system!: boolean;
  @Field(() => String, { name: 'signingSecret', nullable: true, description: 'Only in the answer that generated it.' }) signing_secret!: string | null;
  @Field({ name: 'hasSigningSecret' }) has_signing_secret!: boolean;
  @Field(() => String, { name: 'previousSecretExpiresAt', nullable: true }) previous_secret_expires_at!: string | null;
  @Field(() => String, { name: 'eventTypePath', nullable: true }) event_type_path!: string | null;
  @Field(() => String, { name: 'eventTypeHeader', nullable: true }) event_type_header!: string | null;
  @Field(() => GraphQLJSON, { name: 'typingRules' }) typing_rules!: TypingRule[];
  @Field({ name: 'isActive' }) is_active!: boolean;
  @Field(() => String, { nullable: true }) provider!: EndpointView['provider'];
  @Field(() => String, { name: 'providerRepo', nullable: true }) provider_repo!: string | null;
  @Field(() => String, { name: 'providerWebhookId', nullable: true }) provider_webhook_id!: string | null;
  @Field(() => ID, { name: 'oauthConnectionId', nullable: true }) oauth_connection_id!: string | null;
  @Field({ name: 'isIntegration' }) is_integration!: boolean;
  @Field(() => String, { name: 'schemaAlerts', description: 'Which payload changes alert (docs/schemas.md): changes, all or off.' }) schema_alerts!: EndpointView['schema_alerts'];
  @Field(() => String, { name: 'silenceAlerts', description: 'When a quiet source alerts: learned, expected_interval or off.' }) silence_alerts!: EndpointView['silence_alerts'];
  @Field(() => Int, { name: 'expectedIntervalSeconds', nullable: true, description: 'At least one event expected every this many seconds.' }) expected_interval_seconds!: number | null;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType()
class EndpointPage extends PageOf(EndpointType) {}

@InputType()
class EndpointInput {
  @Field({ nullable: true }) name?: string;
  @Field({ nullable: true }) slug?: string;
  @Field({ nullable: true, description: 'Create only; otherwise a secret is generated and shown once.' }) signingSecret?: string;
  @Field(() => String, { nullable: true }) eventTypePath?: string | null;
  @Field(() => String, { nullable: true }) eventTypeHeader?: string | null;
  @Field(() => GraphQLJSON, { nullable: true, description: 'Up to 10 rules: [{ name, logic, conditions, parts, separator }]' }) typingRules?: unknown;
  @Field({ nullable: true }) isActive?: boolean;
  @Field(() => String, { nullable: true }) provider?: string | null;
  @Field(() => String, { nullable: true }) providerRepo?: string | null;
  @Field(() => String, { nullable: true }) providerWebhookId?: string | null;
  @Field(() => ID, { nullable: true }) oauthConnectionId?: string | null;
  @Field(() => String, { nullable: true, description: 'changes, all or off.' }) schemaAlerts?: string;
  @Field(() => String, { nullable: true, description: 'learned, expected_interval or off.' }) silenceAlerts?: string;
  @Field(() => Int, { nullable: true }) expectedIntervalSeconds?: number | null;
}

@InputType()
class RotateEndpointSecretInput {
  @Field({ nullable: true }) signingSecret?: string;
  @Field(() => Int, { nullable: true }) overlapSeconds?: number;
}

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

@Resolver(() => EndpointType)
export class EndpointResolver {
  @Query(() => EndpointPage)
  endpoints(@Scoped(read) ctx: ProjectContext, @Args() page: PageArgs, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<EndpointPage> {
    return listEndpoints(ctx, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => EndpointType)
  endpoint(@Arg('id', () => ID) id: string, @Scoped(read) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<EndpointType> {
    return getEndpoint(ctx, id);
  }

  @Mutation(() => EndpointType)
  createEndpoint(@Arg('input') input: EndpointInput, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<EndpointType> {
    return createEndpoint(ctx, parseInput(createEndpointInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => EndpointType)
  updateEndpoint(
    @Arg('id', () => ID) id: string,
    @Arg('input') input: EndpointInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<EndpointType> {
    return updateEndpoint(ctx, id, parseInput(updateEndpointInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => Boolean, { description: 'Deletes the endpoint with its filters, links and events.' })
  async deleteEndpoint(@Arg('id', () => ID) id: string, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<boolean> {
    await deleteEndpoint(ctx, id);
    return true;
  }

  @Mutation(() => EndpointType, { description: 'Rotates the signing secret; a generated secret is returned once in signingSecret.' })
  rotateEndpointSecret(
    @Arg('id', () => ID) id: string,
    @Arg('input', () => RotateEndpointSecretInput, { nullable: true }) input: RotateEndpointSecretInput | undefined,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<EndpointType> {
    return rotateSecret(ctx, id, parseInput(rotateEndpointSecretInput, snakeKeys(input ?? {}), 'input'));
  }

  @Mutation(() => TestEventType, { description: 'Sends a sample event through the real ingress path (signed with the endpoint’s secret) and returns its id.' })
  sendTestEvent(
    @Arg('endpointId', () => ID) endpointId: string,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<TestEventType> {
    return sendTestEvent(ctx, endpointId);
  }
}
