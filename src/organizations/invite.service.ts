import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { requireRole, type UserContext } from '../auth/access';
import { AppError, ConflictError, ForbiddenError, NotFoundError } from '../common/errors';
import { isUuid } from '../common/ids';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import type { OrganizationContext, RequestContext } from '../common/request-context';
import { hashToken, randomToken } from '../common/secret-box';
import { User } from '../users/user.entity';
import { Invite } from './invite.entity';
import { roleInput } from './member.service';
import { OrganizationMember } from './organization-member.entity';
import {
  type CreatedInviteView,
  type InvitePreviewView,
  type InviteView,
  type MemberView,
  toInvitePreviewView,
  toInviteView,
  toMemberView,
} from './organization.view';

/**
 * Invites: an admin invites an email with a role; the token (`inv_…`, shown
 * once, stored as a hash, and carried by the dashboard link `/invite/<token>`)
 * is accepted either at signup (`invite_token`, password or OAuth: the new user
 * joins this organization and gets no default workspace) or by a signed-in
 * user with that email. `lookupInvite` tells the link's page what the token is
 * for, with the same rules (and errors) as accepting it.
 */
export const INVITE_TOKEN_PREFIX = 'inv_';

// Documented with the pattern the check uses (the pipe's input side would otherwise show a bare string).
export const emailInput = z.string().trim().toLowerCase().pipe(z.email({ message: 'must be an email address' })).meta({ pattern: z.regexes.email.source });
export const createInviteInput = z.object({ email: emailInput, role: roleInput });
export type CreateInviteInput = z.infer<typeof createInviteInput>;
export const acceptInviteInput = z.object({ token: z.string().min(1).max(200) });
export const lookupInviteInput = acceptInviteInput;

/** The dashboard page that accepts an invite (dashboard/src/pages/invite.tsx). */
export const inviteUrl = (ctx: RequestContext, token: string) => `${ctx.container.config.publicBaseUrl}/invite/${token}`;

export async function createInvite(ctx: OrganizationContext, input: CreateInviteInput): Promise<CreatedInviteView> {
  if (input.role === 'owner') requireRole(ctx.role, 'owner');
  const existing = await ctx.em.findOne(OrganizationMember, { organization: ctx.organization.id, user: { email: input.email } });
  if (existing) throw new ConflictError(`${input.email} is already a member of this organization.`, { field: 'email' }, 'already_member');
  // Inviting the same email again replaces the pending invite (and its token).
  await ctx.em.nativeDelete(Invite, { organization: ctx.organization.id, email: input.email, acceptedAt: null });
  const token = `${INVITE_TOKEN_PREFIX}${randomToken(32)}`;
  const invite = ctx.em.create(Invite, {
    organization: ctx.organization,
    email: input.email,
    role: input.role,
    tokenHash: hashToken(token),
    invitedBy: ctx.principal?.kind === 'user' ? ctx.em.getReference(User, ctx.principal.userId) : null,
    expiresAt: new Date(Date.now() + ctx.container.config.RELAY_INVITE_TTL_SECONDS * 1000),
  });
  await ctx.em.flush();
  return { ...toInviteView(invite), token, url: inviteUrl(ctx, token) };
}

export async function listInvites(ctx: OrganizationContext, page: PageRequest): Promise<Page<InviteView>> {
  return findPage(ctx.em, Invite, { organization: ctx.organization.id }, page, toInviteView);
}

async function findInvite(ctx: OrganizationContext, inviteId: string): Promise<Invite> {
  const invite = isUuid(inviteId) ? await ctx.em.findOne(Invite, { id: inviteId, organization: ctx.organization.id }) : null;
  if (!invite) throw new NotFoundError('Invite', inviteId);
  return invite;
}

export async function getInvite(ctx: OrganizationContext, inviteId: string): Promise<InviteView> {
  return toInviteView(await findInvite(ctx, inviteId));
}

/** Revoking deletes the invite: its token stops working. */
export async function revokeInvite(ctx: OrganizationContext, inviteId: string): Promise<void> {
  const invite = await findInvite(ctx, inviteId);
  if (invite.role === 'owner') requireRole(ctx.role, 'owner');
  await ctx.em.removeAndFlush(invite);
}

/** The pending invite a token stands for, or the error that explains why it cannot be used. */
export async function findUsableInvite(em: EntityManager, token: string): Promise<Invite> {
  const invite = await em.findOne(Invite, { tokenHash: hashToken(token) }, { populate: ['organization'] });
  // Revoking deletes the invite, so a revoked token and a mistyped one look the same.
  if (!invite) throw new AppError(404, 'not_found', 'This invite was revoked or does not exist: ask for a new one.', { resource: 'Invite' });
  assertUsable(invite);
  return invite;
}

export function assertUsable(invite: Invite): void {
  if (invite.acceptedAt) throw new ConflictError('This invite has already been accepted.', undefined, 'invite_already_used');
  if (invite.expiresAt.getTime() <= Date.now()) throw new AppError(410, 'invite_expired', 'This invite has expired: ask for a new one.');
}

/** What a usable token is for (organization, email, role), for the invite link's page; public. */
export async function lookupInvite(ctx: RequestContext, input: z.infer<typeof lookupInviteInput>): Promise<InvitePreviewView> {
  return toInvitePreviewView(await findUsableInvite(ctx.em, input.token));
}

/** Makes `user` a member with the invited role. Call inside the caller's transaction. */
export async function joinThroughInvite(em: EntityManager, invite: Invite, user: User): Promise<OrganizationMember> {
  if (invite.email !== user.email) {
    throw new ForbiddenError(`This invite was sent to another email address; sign in as ${invite.email} to accept it.`, undefined, 'invite_email_mismatch');
  }
  const already = await em.findOne(OrganizationMember, { organization: invite.organization, user });
  if (already) throw new ConflictError('You are already a member of this organization.', undefined, 'already_member');
  // Claim the invite atomically so that one token makes one member.
  const claimed = await em.nativeUpdate(Invite, { id: invite.id, acceptedAt: null }, { acceptedAt: new Date() });
  if (claimed === 0) throw new ConflictError('This invite has already been accepted.', undefined, 'invite_already_used');
  const member = em.create(OrganizationMember, { organization: invite.organization, user, role: invite.role });
  await em.flush();
  return member;
}

/** A signed-in user accepts an invite sent to their email. */
export async function acceptInvite(ctx: UserContext, input: z.infer<typeof acceptInviteInput>): Promise<MemberView> {
  return ctx.em.transactional(async (em) => {
    const invite = await findUsableInvite(em, input.token);
    const user = await em.findOneOrFail(User, ctx.principal.userId);
    return toMemberView(await joinThroughInvite(em, invite, user));
  });
}
