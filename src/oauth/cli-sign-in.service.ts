import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { SessionView } from '../accounts/account.view';
import { startSession } from '../accounts/session.service';
import { type AppError, ValidationError } from '../common/errors';
import type { RequestContext } from '../common/request-context';
import { constantTimeEqual, hashToken, randomToken } from '../common/secret-box';
import type { User } from '../users/user.entity';
import { CliAuthCode } from './cli-auth-code.entity';

/**
 * OAuth sign-in for `relay login --oauth` (RFC 8252, loopback redirect +
 * PKCE): the provider still returns to the API's callback; for a flow the
 * CLI started, the callback then sends the browser on to the CLI's
 * 127.0.0.1 address with a one-time code, which only the holder of the
 * CLI's PKCE verifier can exchange for a session.
 */
export const CLI_CODE_TTL_MS = 60_000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

export const cliRedirectUri = z
  .string()
  .max(200)
  .refine((value) => {
    try {
      const url = new URL(value);
      return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname) && url.port !== '' && !url.username && !url.password && !url.hash && !value.includes('#');
    } catch {
      return false;
    }
  }, 'must be a loopback address with a port, e.g. http://127.0.0.1:53682/callback');

export const cliCodeChallenge = z.string().regex(/^[A-Za-z0-9_-]{43}$/, 'must be BASE64URL(SHA-256(code_verifier)), 43 characters');

export const cliTokenInput = z.object({
  code: z.string().min(1).max(200),
  code_verifier: z.string().regex(/^[A-Za-z0-9._~-]{43,128}$/, 'must be a PKCE code verifier (RFC 7636: 43 to 128 characters)'),
});
export type CliTokenInput = z.infer<typeof cliTokenInput>;

const withQuery = (uri: string, params: Record<string, string>) => {
  const url = new URL(uri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  return url.toString();
};

/** Where the callback sends the browser once the CLI's flow signed a user in. */
export async function cliRedirectWithCode(ctx: RequestContext, flow: { cliRedirectUri: string; cliCodeChallenge: string }, user: User): Promise<string> {
  const code = randomToken(32);
  ctx.em.create(CliAuthCode, { codeHash: hashToken(code), user, codeChallenge: flow.cliCodeChallenge, expiresAt: new Date(Date.now() + CLI_CODE_TTL_MS) });
  // Codes nobody exchanged go when new ones are made.
  await ctx.em.nativeDelete(CliAuthCode, { expiresAt: { $lt: new Date() } });
  await ctx.em.flush();
  return withQuery(flow.cliRedirectUri, { code });
}

/** The CLI's flow failed after its state was used: tell the waiting CLI instead of leaving it to time out. */
export function cliRedirectWithError(redirectUri: string, err: AppError): string {
  return withQuery(redirectUri, { error: err.code, error_description: err.message });
}

/** The code (once, before it expires) and the verifier of its challenge give a session. */
export async function exchangeCliCode(ctx: RequestContext, input: CliTokenInput): Promise<SessionView> {
  const row = await ctx.em.findOne(CliAuthCode, { codeHash: hashToken(input.code) }, { populate: ['user'] });
  const deleted = row ? await ctx.em.nativeDelete(CliAuthCode, { id: row.id }) : 0;
  if (!row || deleted === 0) throw new ValidationError('Unknown or already used code: run `relay login --oauth` again.', { field: 'code' }, 'invalid_cli_code');
  if (row.expiresAt.getTime() <= Date.now()) throw new ValidationError('This code expired: run `relay login --oauth` again.', { field: 'code' }, 'cli_code_expired');
  const challenge = createHash('sha256').update(input.code_verifier).digest('base64url');
  if (!constantTimeEqual(challenge, row.codeChallenge)) {
    throw new ValidationError('The code verifier does not match the challenge this sign-in started with.', { field: 'code_verifier' }, 'invalid_code_verifier');
  }
  return startSession(ctx.em, ctx.container, row.user);
}
