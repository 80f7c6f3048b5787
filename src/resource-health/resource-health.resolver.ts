import { Ctx, Field, FieldResolver, Float, Int, ObjectType, Resolver, Root } from 'type-graphql';
import { DestinationType } from '../destinations/destination.resolver';
import type { DestinationView } from '../destinations/destination.view';
import { EndpointType } from '../endpoints/endpoint.resolver';
import type { EndpointView } from '../endpoints/endpoint.view';
import type { GraphQLContext } from '../graphql/context';
import { destinationHealth, endpointHealth, linkedEndpointsByDestinationIds, type ResourceHealthView } from './resource-health.service';

@ObjectType('ResourceHealth', { description: 'Health over the last 24 hours (docs/dashboard.md).' })
class ResourceHealthType implements ResourceHealthView {
  @Field(() => Int, { name: 'attempts24h' }) attempts_24h!: number;
  @Field(() => Float, { name: 'successRate24h', nullable: true, description: '0..1; null without finished attempts.' }) success_rate_24h!: number | null;
  @Field(() => Int, { name: 'p95LatencyMs24h', nullable: true }) p95_latency_ms_24h!: number | null;
  @Field(() => String, { name: 'lastError', nullable: true }) last_error!: string | null;
  @Field(() => String, { name: 'lastErrorAt', nullable: true }) last_error_at!: string | null;
  @Field(() => String, { name: 'failingSince', nullable: true, description: 'Set while the newest attempt failed.' }) failing_since!: string | null;
  @Field(() => Boolean, { name: 'cliOnline', nullable: true, description: 'cli destinations: a relay listen session holds it now.' }) cli_online!: boolean | null;
}

@Resolver(() => DestinationType)
export class DestinationHealthResolver {
  @FieldResolver(() => ResourceHealthType, { description: 'Health over the last 24 hours (batched per request).' })
  health(@Root() d: DestinationView, @Ctx() { ctx, loaders }: GraphQLContext): Promise<ResourceHealthView> {
    return loaders.get(`destinationHealth:${d.project_id}`, (ids) => destinationHealth(ctx.em, d.project_id, ids)).load(d.id);
  }

  @FieldResolver(() => [EndpointType], { name: 'linkedEndpoints', description: 'The endpoints this destination is linked to, by name (batched per request).' })
  linkedEndpoints(@Root() d: DestinationView, @Ctx() { ctx, loaders }: GraphQLContext): Promise<EndpointView[]> {
    return loaders.get(`linkedEndpoints:${d.project_id}`, (ids) => linkedEndpointsByDestinationIds(ctx.em, ctx.container.config, d.project_id, ids)).load(d.id);
  }
}

@Resolver(() => EndpointType)
export class EndpointHealthResolver {
  @FieldResolver(() => ResourceHealthType, { description: "Health of the endpoint's deliveries over the last 24 hours (batched per request)." })
  health(@Root() e: EndpointView, @Ctx() { ctx, loaders }: GraphQLContext): Promise<ResourceHealthView> {
    return loaders.get(`endpointHealth:${e.project_id}`, (ids) => endpointHealth(ctx.em, e.project_id, ids)).load(e.id);
  }
}
