import { z } from 'zod';
import { bothOrNeither } from '../common/validation';
import { provisionUser } from '../accounts/account.service';
import type { SessionView } from '../accounts/account.view';
import { startSession } from '../accounts/session.service';
import { roleAllows } from '../auth/permissions';
import { AppError, ConflictError, ForbiddenError, ValidationError } from '../common/errors';
import type { ProjectContext, RequestContext } from '../common/request-context';
import { hashToken, randomToken } from '../common/secret-box';
import { uniqueSlug } from '../common/slug';
import { OAUTH_PROVIDERS, type OAuthProvider } from '../common/types';
import { generateEndpointSecret } from '../endpoints/endpoint-secret.service';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { notifyEndpointChanged } from '../ingress/endpoint-cache';
import { assertUsable, findUsableInvite } from '../organizations/invite.service';
import { OrganizationMember } from '../organizations/organization-member.entity';
import { User } from '../users/user.entity';
import { assertClientRedirect, clientCodeChallenge, clientRedirectUri, clientRedirectWithCode, clientRedirectWithError } from './client-sign-in.service';
import { authorizeUrl, exchangeCode, fetchUserInfo, pkcePair, type ProviderUser } from './oauth-client';
import { OAuthConnection } from './oauth-connection.entity';
import { storeTokens } from './oauth-connection.service';
import { type AuthorizationView, type ConnectionResultView, type IntegrationEndpointView, toOAuthConnectionView } from './oauth-connection.view';
import { OAuthState, type OAuthPurpose } from './oauth-state.entity';
import { providerConfig, redirectUri } from './oauth-providers';
import { UserIdentity } from './user-identity.entity';

/**
 * The authorization-code flow with PKCE (S256) for OAuth sign-in and for
 * project OAuth connections. Starting a flow stores its `state` (hashed), the
 * sealed PKCE verifier and what to do on return, with an expiry; the callback
 * `GET /v1/oauth/:provider/callback` consumes that row exactly once.
 */
export const providerInput = z.enum(OAUTH_PROVIDERS, { message: `must be one of ${OAUTH_PROVIDERS.join(', ')}` });

export const startSignInInput = z
  .object({
    invite_token: z.string().min(1).max(200).optional(),
    /**
     * Where the callback sends the browser with a one-time code: the CLI's loopback address
     * (`relay login --oauth`) or the dashboard's `{PUBLIC_BASE_URL}/oauth/callback`.
     */
    client_redirect_uri: clientRedirectUri.optional(),
    /** With client_redirect_uri: BASE64URL(SHA-256(verifier)) of the client's own PKCE pair, checked at the code exchange. */
    client_code_challenge: clientCodeChallenge.optional(),
  })
  .refine((input) => (input.client_redirect_uri === undefined) === (input.client_code_challenge === undefined), {
    message: 'client_redirect_uri and client_code_challenge go together',
    path: ['client_code_challenge'],
  })
  .meta(bothOrNeither('client_redirect_uri', 'client_code_challenge'));
export type StartSignInInput = z.infer<typeof startSignInInput>;

export const startConnectionInput = z.object({
  provider: providerInput,
  /** Code hosts only: also create an integration endpoint (never rate-limited) bound to this connection. */
  create_endpoint: z.boolean().optional(),
  /** Overrides the provider's configured scopes. */
  scopes: z.array(z.string().regex(/^[\x21\x23-\x5b\x5d-\x7e]+$/, 'must be a scope token')).max(50).optional(),
});
export type StartConnectionInput = z.infer<typeof startConnectionInput>;

export const callbackQuery = z.object({
  state: z.string({ message: 'is required' }).min(1).max(200),
  code: z.string().min(1).max(4096).optional(),
  error: z.string().max(200).optional(),
  error_description: z.string().max(2000).optional(),
  /** The issuer that answers (RFC 9207); checked when the provider's issuer is configured. */
  iss: z.string().max(2000).optional(),
});
export type CallbackQuery = z.infer<typeof callbackQuery>;

export type CallbackResult =
  | { kind: 'sign_in'; session: SessionView }
  | { kind: 'connect'; result: ConnectionResultView }
  /** A sign-in a client (CLI, dashboard) started: send the browser on to its redirect URI. */
  | { kind: 'client_redirect'; location: string };

const isCodeHost = (provider: OAuthProvider) => provider.startsWith('codehost_');

async function begin(
  ctx: RequestContext,
  provider: OAuthProvider,
  purpose: OAuthPurpose,
  fields: Partial<Pick<OAuthState, 'user' | 'project' | 'invite' | 'createEndpoint' | 'clientRedirectUri' | 'clientCodeChallenge'>> & { scopes?: string[] },
): Promise<AuthorizationView> {
  const cfg = providerConfig(ctx.container, provider);
  const state = randomToken(32);
  const { verifier, challenge } = await pkcePair();
  const scopes = fields.scopes ?? cfg.scopes;
  const expiresAt = new Date(Date.now() + ctx.container.config.RELAY_OAUTH_STATE_TTL_SECONDS * 1000);
  ctx.em.create(OAuthState, {
    stateHash: hashToken(state),
    provider,
    purpose,
    codeVerifierEnc: ctx.container.secrets.seal(verifier),
    user: fields.user ?? null,
    project: fields.project ?? null,
    invite: fields.invite ?? null,
    createEndpoint: fields.createEndpoint ?? false,
    clientRedirectUri: fields.clientRedirectUri ?? null,
    clientCodeChallenge: fields.clientCodeChallenge ?? null,
    scopes: scopes.join(' '),
    expiresAt,
  });
  // Expired flows that never came back go when new ones start.
  await ctx.em.nativeDelete(OAuthState, { expiresAt: { $lt: new Date() } });
  await ctx.em.flush();
  return {
    authorization_url: authorizeUrl(cfg, { redirectUri: redirectUri(ctx.container, provider), state, challenge, scopes }),
    state,
    expires_at: expiresAt.toISOString(),
  };
}

export async function startSignIn(ctx: RequestContext, provider: OAuthProvider, input: StartSignInInput): Promise<AuthorizationView> {
  const cfg = providerConfig(ctx.container, provider);
  if (!cfg.userinfoUrl) {
    throw new ValidationError(`Sign-in with ${provider} needs its userinfo endpoint: set OAUTH_${provider.toUpperCase()}_USERINFO_URL.`, { field: 'provider' }, 'oauth_sign_in_unavailable');
  }
  if (input.client_redirect_uri !== undefined) assertClientRedirect(ctx.container, input.client_redirect_uri);
  const invite = input.invite_token ? await findUsableInvite(ctx.em, input.invite_token) : undefined;
  return begin(ctx, provider, 'sign_in', { invite, clientRedirectUri: input.client_redirect_uri, clientCodeChallenge: input.client_code_challenge });
}

export async function startConnection(ctx: ProjectContext, input: StartConnectionInput): Promise<AuthorizationView> {
  if (ctx.principal?.kind !== 'user') {
    throw new ForbiddenError('Connecting an OAuth account needs a user session: the user authorizes in a browser.', undefined, 'user_session_required');
  }
  if (input.create_endpoint && !isCodeHost(input.provider)) {
    throw new ValidationError('create_endpoint is only for code hosts (codehost_a, codehost_b, codehost_c).', { field: 'create_endpoint' });
  }
  return begin(ctx, input.provider, 'connect', {
    user: ctx.em.getReference(User, ctx.principal.userId),
    project: ctx.project,
    createEndpoint: input.create_endpoint ?? false,
    scopes: input.scopes,
  });
}

/** Finds and deletes the flow in one step, so a state works once. */
async function consumeState(ctx: RequestContext, provider: OAuthProvider, state: string): Promise<OAuthState> {
  const row = await ctx.em.findOne(OAuthState, { stateHash: hashToken(state), provider }, { populate: ['project', 'invite', 'invite.organization', 'user'] });
  const deleted = row ? await ctx.em.nativeDelete(OAuthState, { id: row.id }) : 0;
  if (!row || deleted === 0) {
    throw new ValidationError('Unknown or already used OAuth state: start the authorization again.', { field: 'state' }, 'invalid_oauth_state');
  }
  if (row.expiresAt.getTime() <= Date.now()) {
    throw new ValidationError('This authorization took too long and expired: start it again.', { field: 'state' }, 'oauth_state_expired');
  }
  return row;
}

export async function completeOAuth(ctx: RequestContext, provider: OAuthProvider, query: CallbackQuery, expected?: OAuthPurpose): Promise<CallbackResult> {
  const flow = await consumeState(ctx, provider, query.state);
  if (!flow.clientRedirectUri || !flow.clientCodeChallenge) return completeFlow(ctx, provider, query, flow, expected);
  const client = { redirectUri: flow.clientRedirectUri, codeChallenge: flow.clientCodeChallenge };
  try {
    const user = await completeSignIn(ctx, provider, query, flow);
    return { kind: 'client_redirect', location: await clientRedirectWithCode(ctx, client, user) };
  } catch (err) {
    if (err instanceof AppError) return { kind: 'client_redirect', location: clientRedirectWithError(client.redirectUri, err) };
    throw err;
  }
}

async function completeFlow(ctx: RequestContext, provider: OAuthProvider, query: CallbackQuery, flow: OAuthState, expected?: OAuthPurpose): Promise<CallbackResult> {
  if (expected && flow.purpose !== expected) {
    throw new ValidationError(`This state belongs to a ${flow.purpose.replace('_', '-')} flow.`, { field: 'state' }, 'invalid_oauth_state');
  }
  // A signed-in caller may only finish their own connect flow (the browser redirect itself carries no credentials).
  if (flow.purpose === 'connect' && ctx.principal && !(ctx.principal.kind === 'user' && ctx.principal.userId === flow.user?.id)) {
    throw new ForbiddenError('This authorization was started by another user.', undefined, 'oauth_flow_forbidden');
  }
  if (flow.purpose === 'sign_in') {
    const user = await completeSignIn(ctx, provider, query, flow);
    return { kind: 'sign_in', session: await startSession(ctx.em, ctx.container, user) };
  }
  const { tokens, providerUser } = await providerTokens(ctx, provider, query, flow);

  const connection = await ctx.em.transactional(async (em) => {
    const member = await em.findOne(OrganizationMember, { organization: flow.project!.organization, user: flow.user! });
    if (!member || !roleAllows(member.role, 'write')) {
      throw new ForbiddenError('You can no longer change this project: the connection was not saved.', { required_role: 'developer' }, 'insufficient_role');
    }
    const existing = providerUser
      ? await em.findOne(OAuthConnection, { project: flow.project!, provider, providerUserId: providerUser.id })
      : null;
    const row = existing ?? em.create(OAuthConnection, { project: flow.project!, provider });
    row.providerUserId = providerUser?.id ?? null;
    row.providerUsername = providerUser?.username ?? null;
    storeTokens(ctx.container, row, tokens, flow.scopes.split(' ').filter(Boolean));
    await em.flush();
    const endpoint = flow.createEndpoint && !(existing && (await em.count(WebhookEndpoint, { oauthConnection: existing }))) ? await createIntegrationEndpoint(ctx, em, row) : null;
    return { connection: toOAuthConnectionView(row), endpoint };
  });
  return { kind: 'connect', result: connection };
}

/** The provider's side of the callback: its denial, or the code exchanged (with our verifier) and who the user is there. */
async function providerTokens(ctx: RequestContext, provider: OAuthProvider, query: CallbackQuery, flow: OAuthState) {
  if (query.error) {
    throw new ValidationError(`${provider} did not authorize: ${query.error}${query.error_description ? ` (${query.error_description})` : ''}.`, { provider_error: query.error }, 'oauth_denied');
  }
  if (!query.code) throw new ValidationError('The callback has no code.', { field: 'code' });
  const cfg = providerConfig(ctx.container, provider);
  const tokens = await exchangeCode(cfg, { callback: query, redirectUri: redirectUri(ctx.container, provider), verifier: ctx.container.secrets.open(flow.codeVerifierEnc) });
  return { tokens, providerUser: await fetchUserInfo(cfg, tokens.accessToken) };
}

async function completeSignIn(ctx: RequestContext, provider: OAuthProvider, query: CallbackQuery, flow: OAuthState): Promise<User> {
  const { providerUser } = await providerTokens(ctx, provider, query, flow);
  return signIn(ctx, provider, flow, providerUser!);
}

async function createIntegrationEndpoint(ctx: RequestContext, em: RequestContext['em'], connection: OAuthConnection): Promise<IntegrationEndpointView> {
  const secret = generateEndpointSecret();
  const endpoint = em.create(WebhookEndpoint, {
    project: connection.project,
    name: `${connection.provider}${connection.providerUsername ? ` (${connection.providerUsername})` : ''}`,
    slug: uniqueSlug(connection.provider),
    signingSecretEnc: ctx.container.secrets.seal(secret),
    provider: connection.provider as WebhookEndpoint['provider'],
    oauthConnection: connection,
    isIntegration: true,
  });
  await em.flush();
  await notifyEndpointChanged(em, endpoint.id);
  return { id: endpoint.id, slug: endpoint.slug, url: `${ctx.container.config.publicBaseUrl}/hooks/${endpoint.slug}`, signing_secret: secret };
}

/**
 * A known provider account signs in as its user. A new one becomes a new
 * user (with a default workspace, or joining the invite's organization);
 * an existing account with the same email is linked only when the provider
 * says the email is verified.
 */
async function signIn(ctx: RequestContext, provider: OAuthProvider, flow: OAuthState, who: ProviderUser): Promise<User> {
  return ctx.em.transactional(async (em) => {
    const identity = await em.findOne(UserIdentity, { provider, providerUserId: who.id }, { populate: ['user'] });
    if (identity) return identity.user;
    if (!who.email) throw new ValidationError(`${provider} did not share an email address, which sign-in needs.`, undefined, 'oauth_email_missing');
    let user = await em.findOne(User, { email: who.email });
    if (user && !who.emailVerified) {
      throw new ConflictError('An account with this email already exists: log in with your password.', { field: 'email' }, 'email_taken');
    }
    if (!user) {
      if (flow.invite) assertUsable(flow.invite);
      user = await provisionUser(em, { email: who.email, name: who.username }, flow.invite ?? undefined);
    }
    em.create(UserIdentity, { user, provider, providerUserId: who.id });
    await em.flush();
    return user;
  });
}
