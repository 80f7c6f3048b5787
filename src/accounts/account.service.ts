import { UniqueConstraintViolationException } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { z } from 'zod';
import type { UserContext } from '../auth/access';
import { AuthThrottle } from '../auth/auth-throttle';
import { ConflictError, UnauthenticatedError, ValidationError } from '../common/errors';
import type { RequestContext } from '../common/request-context';
import type { Invite } from '../organizations/invite.entity';
import { emailInput, findUsableInvite, joinThroughInvite } from '../organizations/invite.service';
import { createOwnedOrganization, DEFAULT_WORKSPACE_NAME } from '../organizations/organization.service';
import { User } from '../users/user.entity';
import { type SessionView, type UserView, toUserView } from './account.view';
import { endSession, revokeUserSessions, rotateSession, startSession, withSessionLock } from './session.service';

/**
 * Accounts (docs/accounts.md): email + password (argon2id), sessions from
 * src/accounts/session.service.ts. Login errors never tell whether the email
 * exists.
 */
const password = z.string().min(8, { message: 'must be at least 8 characters' }).max(1024, { message: 'must be at most 1024 characters' });

export const signupInput = z.object({
  email: emailInput,
  password,
  name: z.string().trim().min(1).max(100).optional(),
  /** Join the inviting organization with the invited role instead of getting a default workspace. */
  invite_token: z.string().min(1).max(200).optional(),
});
export type SignupInput = z.infer<typeof signupInput>;

export const loginInput = z.object({ email: emailInput, password: z.string().min(1).max(1024) });
export type LoginInput = z.infer<typeof loginInput>;

export const refreshInput = z.object({ refresh_token: z.string().min(1).max(200) });
export type RefreshInput = z.infer<typeof refreshInput>;

export const updateMeInput = z.object({
  name: z.string().trim().min(1).max(100).nullable().optional(),
  password: password.optional(),
  /** Required to change an existing password. */
  current_password: z.string().max(1024).optional(),
});

/**
 * argon2id (the library's default algorithm) with the cost of the hashes already stored: 64 MiB,
 * 3 passes, 4 lanes. A stored hash carries its own parameters, so any of them verifies.
 */
const ARGON2 = { memoryCost: 65_536, timeCost: 3, parallelism: 4 } as const;
let dummyHash: Promise<string> | undefined;

export function hashPassword(plain: string): Promise<string> {
  return argon2Hash(plain, ARGON2);
}

/**
 * The account of someone signing in for the first time: joins the invite's
 * organization when there is one, else gets an organization and a project
 * named `Default` (docs/accounts.md). Call inside a transaction.
 */
export async function provisionUser(
  em: EntityManager,
  fields: { email: string; name?: string | null; passwordHash?: string | null },
  invite?: Invite,
): Promise<User> {
  const user = em.create(User, { email: fields.email, name: fields.name ?? null, passwordHash: fields.passwordHash ?? null });
  try {
    await em.flush();
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) {
      throw new ConflictError('An account with this email already exists: log in instead.', { field: 'email' }, 'email_taken');
    }
    throw err;
  }
  if (invite) await joinThroughInvite(em, invite, user);
  else await createOwnedOrganization(em, user, DEFAULT_WORKSPACE_NAME, { defaultProject: true });
  return user;
}

export async function signup(ctx: RequestContext, input: SignupInput): Promise<SessionView> {
  await AuthThrottle.for(ctx.container).takeIpAttempt('signup', ctx.clientIp);
  const passwordHash = await hashPassword(input.password);
  return ctx.em.transactional(async (em) => {
    const invite = input.invite_token ? await findUsableInvite(em, input.invite_token) : undefined;
    const user = await provisionUser(em, { email: input.email, name: input.name, passwordHash }, invite);
    return startSession(em, ctx.container, user);
  });
}

export async function login(ctx: RequestContext, input: LoginInput): Promise<SessionView> {
  const throttle = AuthThrottle.for(ctx.container);
  const giveBackIpAttempt = await throttle.takeIpAttempt('login', ctx.clientIp);
  const attempt = await throttle.startLoginAttempt(input.email);
  const user = await ctx.em.findOne(User, { email: input.email });
  // Verify against a dummy hash when there is no password to check, so timing does not reveal whether the email exists.
  const hash = user?.passwordHash ?? (await (dummyHash ??= hashPassword('not-a-real-password')));
  const ok = await argon2Verify(hash, input.password).catch(() => false);
  if (!user || !user.passwordHash || !ok) throw new UnauthenticatedError('Email or password is incorrect.', 'invalid_credentials');
  await Promise.all([attempt.succeeded(), giveBackIpAttempt()]);
  return startSession(ctx.em, ctx.container, user, user.passwordHash);
}

export async function refresh(ctx: RequestContext, input: RefreshInput): Promise<SessionView> {
  const giveBackIpAttempt = await AuthThrottle.for(ctx.container).takeIpAttempt('refresh', ctx.clientIp);
  const session = await rotateSession(ctx.em, ctx.container, input.refresh_token);
  await giveBackIpAttempt();
  return session;
}

export async function logout(ctx: RequestContext, input: RefreshInput): Promise<void> {
  await endSession(ctx.em, input.refresh_token);
}

export async function me(ctx: UserContext): Promise<UserView> {
  return toUserView(await ctx.em.findOneOrFail(User, ctx.principal.userId));
}

export async function updateMe(ctx: UserContext, input: z.infer<typeof updateMeInput>): Promise<UserView> {
  const user = await ctx.em.findOneOrFail(User, ctx.principal.userId);
  if (input.name !== undefined) user.name = input.name;
  if (input.password !== undefined) {
    if (user.passwordHash && !(await argon2Verify(user.passwordHash, input.current_password ?? '').catch(() => false))) {
      throw new ValidationError('current_password is missing or wrong: it is needed to change your password.', { field: 'current_password' }, 'invalid_current_password');
    }
    user.passwordHash = await hashPassword(input.password);
    // Every session ends, this one included: the new hash commits with the revocation of every refresh token,
    // under the lock that refreshes and logins take, so none minted concurrently survives.
    await withSessionLock(ctx.em, user.id, async (em) => {
      await em.flush();
      await revokeUserSessions(em, user.id);
    });
  }
  await ctx.em.flush();
  return toUserView(user);
}
