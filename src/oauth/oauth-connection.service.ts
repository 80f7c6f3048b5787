import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import type { AppContainer } from '../app/container';
import { AppError, ConflictError } from '../common/errors';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import { findInProject } from '../common/project-scope';
import type { ProjectContext } from '../common/request-context';
import { refreshGrant, type TokenSet } from './oauth-client';
import { OAuthConnection } from './oauth-connection.entity';
import { type OAuthConnectionView, toOAuthConnectionView } from './oauth-connection.view';
import { providerConfig } from './oauth-providers';

/**
 * Stored OAuth connections of a project: tokens sealed with the container's
 * SecretBox, never returned; refreshed when they are about to expire (on use,
 * or on demand).
 */
const REFRESH_MARGIN_MS = 60_000;

export const updateConnectionInput = z.object({ metadata: z.record(z.string(), z.unknown()) });
export type UpdateConnectionInput = z.infer<typeof updateConnectionInput>;

/** Seals a token set onto the connection; a refresh that returns no new refresh token keeps the old one. */
export function storeTokens(container: AppContainer, connection: OAuthConnection, tokens: TokenSet, requestedScopes: string[] = []): void {
  connection.accessTokenEnc = container.secrets.seal(tokens.accessToken);
  if (tokens.refreshToken) connection.refreshTokenEnc = container.secrets.seal(tokens.refreshToken);
  connection.tokenExpiresAt = tokens.expiresAt;
  const scopes = tokens.scope ? tokens.scope.split(/[\s,]+/).filter(Boolean) : requestedScopes;
  if (scopes.length) connection.scopes = scopes.join(',');
}

export async function listConnections(ctx: ProjectContext, page: PageRequest): Promise<Page<OAuthConnectionView>> {
  return findPage(ctx.em, OAuthConnection, { project: ctx.project.id }, page, toOAuthConnectionView);
}

function findConnection(ctx: ProjectContext, id: string): Promise<OAuthConnection> {
  return findInProject(ctx, OAuthConnection, 'OAuth connection', id);
}

export async function getConnection(ctx: ProjectContext, id: string): Promise<OAuthConnectionView> {
  return toOAuthConnectionView(await findConnection(ctx, id));
}

export async function updateConnection(ctx: ProjectContext, id: string, input: UpdateConnectionInput): Promise<OAuthConnectionView> {
  const connection = await findConnection(ctx, id);
  connection.metadata = input.metadata;
  await ctx.em.flush();
  return toOAuthConnectionView(connection);
}

/** Forgets the tokens. Integration endpoints made through it stay (their link is cleared). */
export async function deleteConnection(ctx: ProjectContext, id: string): Promise<void> {
  await ctx.em.removeAndFlush(await findConnection(ctx, id));
}

/**
 * The connection's access token, refreshed first when it expires within a
 * minute (or when `force`). The row is locked while refreshing so that two
 * processes never spend one rotating refresh token twice.
 */
export async function connectionAccessToken(container: AppContainer, em: EntityManager, connectionId: string, force = false): Promise<string> {
  return em.transactional(async (tx) => {
    const connection = await tx.findOneOrFail(OAuthConnection, connectionId, { lockMode: LockMode.PESSIMISTIC_WRITE });
    const expiresAt = connection.tokenExpiresAt?.getTime();
    const due = expiresAt !== undefined && expiresAt - REFRESH_MARGIN_MS <= Date.now();
    if (connection.accessTokenEnc && !force && !due) return container.secrets.open(connection.accessTokenEnc);
    if (!connection.refreshTokenEnc) {
      throw new ConflictError('This connection’s token has expired and cannot be refreshed: connect it again.', { connection_id: connectionId }, 'oauth_reconnect_required');
    }
    const cfg = providerConfig(container, connection.provider);
    const tokens = await refreshGrant(cfg, container.secrets.open(connection.refreshTokenEnc)).catch((err: unknown) => {
      if (err instanceof AppError && err.code === 'oauth_invalid_grant') {
        throw new ConflictError('The provider no longer accepts this connection’s refresh token: connect it again.', { connection_id: connectionId }, 'oauth_reconnect_required');
      }
      throw err;
    });
    storeTokens(container, connection, tokens);
    await tx.flush();
    return tokens.accessToken;
  });
}

export async function refreshConnection(ctx: ProjectContext, id: string): Promise<OAuthConnectionView> {
  const connection = await findConnection(ctx, id);
  await connectionAccessToken(ctx.container, ctx.em, connection.id, true);
  await ctx.em.refresh(connection);
  return toOAuthConnectionView(connection);
}
