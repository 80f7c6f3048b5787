import { Field, ObjectType, Query, Resolver } from 'type-graphql';
import type { RequestContext } from '../common/request-context';
import { Scoped } from '../graphql/scoped';
import type { OAuthProvider } from '../common/types';
import { relayVersion } from '../../packages/cli/src/version';

@ObjectType()
class ServiceInfo {
  @Field()
  name!: string;

  @Field()
  version!: string;

  @Field(() => [String], { description: 'OAuth providers configured for sign-in (OAUTH_<PROVIDER>_CLIENT_ID set); the dashboard shows a button for each.' })
  oauthProviders!: string[];
}

@Resolver()
export class HealthResolver {
  @Query(() => ServiceInfo, { description: 'Name and version of the relay answering.' })
  serviceInfo(@Scoped({ scope: 'public' }) ctx: RequestContext): ServiceInfo {
    return {
      name: 'webhook-relay',
      version: relayVersion(),
      oauthProviders: Object.keys(ctx.container.config.oauthProviders) as OAuthProvider[],
    };
  }
}
