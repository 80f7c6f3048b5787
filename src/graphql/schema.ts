import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema, type MiddlewareFn, type NonEmptyArray } from 'type-graphql';
import { assertNoNulCharacters } from '../common/validation';
import { CliSessionResolver } from '../cli-sessions/cli-session.resolver';
import { DeliveryResolver } from '../deliveries/delivery.resolver';
import { BulkActionResolver } from '../bulk-actions/bulk-action.resolver';
import { IssueResolver } from '../issues/issue.resolver';
import { EventResolver } from '../events/event.resolver';
import { DestinationHealthResolver, EndpointHealthResolver } from '../resource-health/resource-health.resolver';
import { AccountResolver } from '../accounts/account.resolver';
import { ApiKeyResolver } from '../api-keys/api-key.resolver';
import { DestinationResolver } from '../destinations/destination.resolver';
import { EndpointResolver } from '../endpoints/endpoint.resolver';
import { SchemaResolver } from '../schemas/schema.resolver';
import { FilterGroupResolver } from '../filters/filter-group.resolver';
import { LinkResolver } from '../links/link.resolver';
import { TemplateResolver } from '../templates/template.resolver';
import { TransformResolver } from '../transforms/transform.resolver';
import { HealthResolver } from '../health/health.resolver';
import { OAuthResolver } from '../oauth/oauth.resolver';
import { OrganizationResolver } from '../organizations/organization.resolver';
import { ProjectResolver } from '../projects/project.resolver';
import { ProjectMetricsResolver } from '../project-metrics/project-metrics.resolver';
import { noTopicPubSub } from '../subscriptions/live-feed';
import { LiveResolver } from '../subscriptions/live.resolver';

/** Every resolver class; add new ones here. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const resolvers: NonEmptyArray<Function> = [HealthResolver, ProjectResolver, AccountResolver, OrganizationResolver, ApiKeyResolver, OAuthResolver, EventResolver, DeliveryResolver, BulkActionResolver, IssueResolver, DestinationHealthResolver, EndpointHealthResolver, LiveResolver, EndpointResolver, SchemaResolver, FilterGroupResolver, DestinationResolver, LinkResolver, TemplateResolver, TransformResolver, CliSessionResolver, ProjectMetricsResolver];

/** Every argument of every field, whether or not its resolver calls parseInput, is checked for NUL characters. */
const rejectNulArguments: MiddlewareFn = ({ args }, next) => {
  assertNoNulCharacters(args, 'arguments');
  return next();
};

/**
 * A query's nullable argument given as `null` (`cursor: null`, `endpointId: null`, as clients send unset variables)
 * means "not given", as an absent query parameter does in REST. Mutations keep null: there it can mean "clear".
 */
const readNullArgumentsAsAbsent: MiddlewareFn = ({ args, info }, next) => {
  if (info.operation.operation !== 'mutation') {
    for (const [name, value] of Object.entries(args)) if (value === null) delete args[name];
  }
  return next();
};

let cached: Promise<GraphQLSchema> | undefined;

/** Built once per process. `npm run schema:emit` writes it to schema/schema.graphql. */
export function buildRelaySchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({ resolvers, validate: false, pubSub: noTopicPubSub, globalMiddlewares: [rejectNulArguments, readNullArgumentsAsAbsent] });
  return cached;
}
