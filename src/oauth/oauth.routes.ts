import { z } from 'zod';
import { sessionView } from '../accounts/account.view';
import { pageSchema, paginationQuery } from '../common/pagination';
import { idParams, Redirect, route } from '../http/route';
import { clientTokenInput, exchangeClientCode } from './client-sign-in.service';
import {
  deleteConnection,
  getConnection,
  listConnections,
  refreshConnection,
  updateConnection,
  updateConnectionInput,
} from './oauth-connection.service';
import { authorizationView, connectionResultView, oauthConnectionView } from './oauth-connection.view';
import { callbackQuery, completeOAuth, providerInput, startConnection, startConnectionInput, startSignIn, startSignInInput } from './oauth.service';

const providerParams = z.object({ provider: providerInput });

export const oauthRoutes = [
  route({
    method: 'post', path: '/v1/oauth/:provider/authorize', tag: 'oauth', summary: 'Start OAuth sign-in: open `authorization_url` in a browser',
    access: { scope: 'public' }, params: providerParams, body: startSignInInput, response: authorizationView,
    handler: (ctx, { params, body }) => startSignIn(ctx, params.provider, body ?? {}),
  }),
  route({
    method: 'get', path: '/v1/oauth/:provider/callback', tag: 'oauth', summary: 'Where the provider redirects back: completes sign-in (a session) or a connection',
    access: { scope: 'public' }, params: providerParams, query: callbackQuery, response: z.union([sessionView, connectionResultView]),
    redirects: 'A sign-in started with `client_redirect_uri` (`relay login --oauth`, the dashboard): on to that URI with a one-time `code` (or `error`)',
    handler: async (ctx, { params, query }) => {
      const done = await completeOAuth(ctx, params.provider, query);
      if (done.kind === 'client_redirect') return new Redirect(done.location);
      return done.kind === 'sign_in' ? done.session : done.result;
    },
  }),
  route({
    method: 'post', path: '/v1/oauth/token', tag: 'oauth', summary: 'A client (`relay login --oauth`, the dashboard) exchanges its one-time code and PKCE verifier for a session',
    access: { scope: 'public' }, body: clientTokenInput, response: sessionView,
    handler: (ctx, { body }) => exchangeClientCode(ctx, body),
  }),
  route({
    method: 'post', path: '/v1/oauth-connections', tag: 'oauth', summary: 'Start connecting an OAuth account to the project: open `authorization_url` in a browser',
    access: { scope: 'project', permission: 'write' }, body: startConnectionInput.extend({ project_id: z.uuid().optional() }), response: authorizationView, status: 201,
    handler: (ctx, { body }) => startConnection(ctx, body),
  }),
  route({
    method: 'get', path: '/v1/oauth-connections', tag: 'oauth', summary: 'List the project’s OAuth connections',
    access: { scope: 'project', permission: 'read' }, query: paginationQuery, response: pageSchema(oauthConnectionView),
    handler: (ctx, { query }) => listConnections(ctx, query),
  }),
  route({
    method: 'get', path: '/v1/oauth-connections/:id', tag: 'oauth', summary: 'Get an OAuth connection',
    access: { scope: 'project', permission: 'read' }, params: idParams, response: oauthConnectionView,
    handler: (ctx, { params }) => getConnection(ctx, params.id),
  }),
  route({
    method: 'patch', path: '/v1/oauth-connections/:id', tag: 'oauth', summary: 'Replace a connection’s metadata',
    access: { scope: 'project', permission: 'write' }, params: idParams, body: updateConnectionInput, response: oauthConnectionView,
    handler: (ctx, { params, body }) => updateConnection(ctx, params.id, body),
  }),
  route({
    method: 'post', path: '/v1/oauth-connections/:id/refresh', tag: 'oauth', summary: 'Refresh the connection’s access token now',
    access: { scope: 'project', permission: 'write' }, params: idParams, response: oauthConnectionView,
    handler: (ctx, { params }) => refreshConnection(ctx, params.id),
  }),
  route({
    method: 'delete', path: '/v1/oauth-connections/:id', tag: 'oauth', summary: 'Delete a connection and its tokens',
    access: { scope: 'project', permission: 'write' }, params: idParams,
    handler: (ctx, { params }) => deleteConnection(ctx, params.id),
  }),
];
