import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Args, Field, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { SessionType } from '../accounts/account.resolver';
import type { UserContext } from '../auth/access';
import { paginationQuery } from '../common/pagination';
import { ValidationError } from '../common/errors';
import type { ProjectContext, RequestContext } from '../common/request-context';
import { parseInput, snakeKeys } from '../common/validation';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import { deleteConnection, getConnection, listConnections, refreshConnection, updateConnection, updateConnectionInput } from './oauth-connection.service';
import type { AuthorizationView, ConnectionResultView, IntegrationEndpointView, OAuthConnectionView } from './oauth-connection.view';
import { clientTokenInput, exchangeClientCode } from './client-sign-in.service';
import { callbackQuery, completeOAuth, providerInput, startConnection, startConnectionInput, startSignIn, startSignInInput } from './oauth.service';

@ObjectType('OAuthConnection')
export class OAuthConnectionType implements OAuthConnectionView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'projectId' }) project_id!: string;
  @Field(() => String) provider!: OAuthConnectionView['provider'];
  @Field(() => String, { name: 'providerUserId', nullable: true }) provider_user_id!: string | null;
  @Field(() => String, { name: 'providerUsername', nullable: true }) provider_username!: string | null;
  @Field({ description: 'Comma-separated.' }) scopes!: string;
  @Field(() => GraphQLJSONObject) metadata!: Record<string, unknown>;
  @Field({ name: 'hasRefreshToken' }) has_refresh_token!: boolean;
  @Field(() => String, { name: 'tokenExpiresAt', nullable: true }) token_expires_at!: string | null;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType('OAuthAuthorization')
class AuthorizationType implements AuthorizationView {
  @Field({ name: 'authorizationUrl', description: 'Open in the user’s browser.' }) authorization_url!: string;
  @Field() state!: string;
  @Field({ name: 'expiresAt' }) expires_at!: string;
}

@ObjectType('IntegrationEndpoint')
class IntegrationEndpointType implements IntegrationEndpointView {
  @Field(() => ID) id!: string;
  @Field() slug!: string;
  @Field() url!: string;
  @Field({ name: 'signingSecret', description: 'Shown once.' }) signing_secret!: string;
}

@ObjectType('OAuthConnectionResult')
class ConnectionResultType implements ConnectionResultView {
  @Field(() => OAuthConnectionType) connection!: OAuthConnectionType;
  @Field(() => IntegrationEndpointType, { nullable: true }) endpoint!: IntegrationEndpointType | null;
}

@ObjectType() class OAuthConnectionPage extends PageOf(OAuthConnectionType) {}

@Resolver()
export class OAuthResolver {
  @Mutation(() => AuthorizationType, { description: 'Start OAuth sign-in.' })
  startOAuthSignIn(
    @Arg('provider') provider: string,
    @Arg('inviteToken', () => String, { nullable: true }) inviteToken: string | undefined,
    @Arg('clientRedirectUri', () => String, { nullable: true, description: 'Where the callback sends the browser with a one-time code: a loopback address (http://127.0.0.1:<port>/…, the CLI) or {PUBLIC_BASE_URL}/oauth/callback (the dashboard).' }) clientRedirectUri: string | undefined,
    @Arg('clientCodeChallenge', () => String, { nullable: true, description: 'With clientRedirectUri: BASE64URL(SHA-256(verifier)) of the client’s PKCE pair.' }) clientCodeChallenge: string | undefined,
    @Scoped({ scope: 'public' }) ctx: RequestContext,
  ): Promise<AuthorizationType> {
    return startSignIn(ctx, parseInput(providerInput, provider, 'provider'), parseInput(startSignInInput, snakeKeys({ inviteToken, clientRedirectUri, clientCodeChallenge }), 'arguments'));
  }

  @Mutation(() => SessionType, { description: 'The one-time code the callback sent to a client’s redirect URI (CLI, dashboard), with the client’s PKCE verifier, for a session.' })
  exchangeOAuthCode(@Arg('code') code: string, @Arg('codeVerifier') codeVerifier: string, @Scoped({ scope: 'public' }) ctx: RequestContext): Promise<SessionType> {
    return exchangeClientCode(ctx, parseInput(clientTokenInput, { code, code_verifier: codeVerifier }, 'arguments'));
  }

  @Mutation(() => SessionType, { description: 'Finish OAuth sign-in with the code and state the provider sent back.' })
  async completeOAuthSignIn(@Arg('provider') provider: string, @Arg('code') code: string, @Arg('state') state: string, @Scoped({ scope: 'public' }) ctx: RequestContext): Promise<SessionType> {
    const done = await completeOAuth(ctx, parseInput(providerInput, provider, 'provider'), parseInput(callbackQuery, { code, state }, 'arguments'), 'sign_in');
    if (done.kind !== 'sign_in') throw new ValidationError('This sign-in was started with a client redirect URI: its browser completes it at GET /v1/oauth/:provider/callback.', { field: 'state' }, 'invalid_oauth_state');
    return done.session;
  }

  @Mutation(() => AuthorizationType, { description: 'Start connecting an OAuth account to the project.' })
  startOAuthConnection(
    @Arg('provider') provider: string,
    @Arg('createEndpoint', { defaultValue: false }) createEndpoint: boolean,
    @Arg('scopes', () => [String], { nullable: true }) scopes: string[] | undefined,
    @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined,
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
  ): Promise<AuthorizationType> {
    return startConnection(ctx, parseInput(startConnectionInput, snakeKeys({ provider, createEndpoint, scopes }), 'arguments'));
  }

  @Mutation(() => ConnectionResultType, { description: 'Finish a connection with the code and state the provider sent back (as the user who started it).' })
  async completeOAuthConnection(@Arg('provider') provider: string, @Arg('code') code: string, @Arg('state') state: string, @Scoped({ scope: 'user' }) ctx: UserContext): Promise<ConnectionResultType> {
    const done = await completeOAuth(ctx, parseInput(providerInput, provider, 'provider'), parseInput(callbackQuery, { code, state }, 'arguments'), 'connect');
    return (done as Extract<typeof done, { kind: 'connect' }>).result;
  }

  @Query(() => OAuthConnectionPage)
  oauthConnections(@Args() page: PageArgs, @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined, @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext): Promise<OAuthConnectionPage> {
    return listConnections(ctx, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => OAuthConnectionType)
  oauthConnection(@Arg('id', () => ID) id: string, @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined, @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext): Promise<OAuthConnectionType> {
    return getConnection(ctx, id);
  }

  @Mutation(() => OAuthConnectionType)
  updateOAuthConnection(
    @Arg('id', () => ID) id: string,
    @Arg('metadata', () => GraphQLJSONObject) metadata: Record<string, unknown>,
    @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined,
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
  ): Promise<OAuthConnectionType> {
    return updateConnection(ctx, id, parseInput(updateConnectionInput, { metadata }, 'arguments'));
  }

  @Mutation(() => OAuthConnectionType)
  refreshOAuthConnection(@Arg('id', () => ID) id: string, @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined, @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext): Promise<OAuthConnectionType> {
    return refreshConnection(ctx, id);
  }

  @Mutation(() => Boolean)
  async deleteOAuthConnection(@Arg('id', () => ID) id: string, @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined, @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext): Promise<boolean> {
    await deleteConnection(ctx, id);
    return true;
  }
}
