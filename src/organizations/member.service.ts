import type { EntityManager } from '@mikro-orm/postgresql';
import { z } from 'zod';
import { revokeUserSessions, withSessionLock } from '../accounts/session.service';
import { requireRole } from '../auth/access';
import { roleAllows } from '../auth/permissions';
import { ConflictError, NotFoundError } from '../common/errors';
import { isUuid } from '../common/ids';
import { findPage, type Page, type PageRequest } from '../common/pagination';
import type { OrganizationContext } from '../common/request-context';
import { ROLES, type Role } from '../common/types';
import { notifyAccessChanged } from '../subscriptions/subscription-access';
import { Invite } from './invite.entity';
import { OrganizationMember } from './organization-member.entity';
import { type MemberView, toMemberView } from './organization.view';

/**
 * Members of an organization (docs/concepts.md#organizations-projects-and-roles): admins manage members who are not
 * owners and cannot make owners; owners manage everyone; the last owner can
 * neither be removed nor demoted. Joining happens through invites.
 */
export const roleInput = z.enum(ROLES, { message: `must be one of ${ROLES.join(', ')}` });
export const changeRoleInput = z.object({ role: roleInput });
export type ChangeRoleInput = z.infer<typeof changeRoleInput>;

export async function listMembers(ctx: OrganizationContext, page: PageRequest): Promise<Page<MemberView>> {
  return findPage(ctx.em, OrganizationMember, { organization: ctx.organization.id }, page, toMemberView, { populate: ['user'] as never });
}

async function findMember(ctx: OrganizationContext, memberId: string): Promise<OrganizationMember> {
  const member = isUuid(memberId)
    ? await ctx.em.findOne(OrganizationMember, { id: memberId, organization: ctx.organization.id }, { populate: ['user'] })
    : null;
  if (!member) throw new NotFoundError('Member', memberId);
  return member;
}

export async function getMember(ctx: OrganizationContext, memberId: string): Promise<MemberView> {
  return toMemberView(await findMember(ctx, memberId));
}

/** An owner who would stop being one: refused when no other owner remains. */
async function assertNotLastOwner(ctx: OrganizationContext, member: OrganizationMember): Promise<void> {
  if (member.role !== 'owner') return;
  const owners = await ctx.em.count(OrganizationMember, { organization: ctx.organization.id, role: 'owner' });
  if (owners <= 1) {
    throw new ConflictError('This is the organization’s last owner: make another member owner first.', { member_id: member.id }, 'last_owner');
  }
}

function assertMayManage(ctx: OrganizationContext, currentRole: Role, newRole?: Role): void {
  if (currentRole === 'owner' || newRole === 'owner') requireRole(ctx.role, 'owner');
}

/**
 * An invite carries its sender's authority, so it ends with it: the pending invites `userId` sent
 * that `role` could not send (null: no longer a member; below admin: none; admin: owner invites)
 * are revoked, and their tokens stop working.
 */
async function revokeInvitesBeyond(em: EntityManager, organizationId: string, userId: string, role: Role | null): Promise<void> {
  if (role === 'owner') return;
  const beyond = role && roleAllows(role, 'admin') ? { role: 'owner' as const } : {};
  await em.nativeDelete(Invite, { organization: organizationId, invitedBy: userId, acceptedAt: null, ...beyond });
}

export async function changeMemberRole(ctx: OrganizationContext, memberId: string, input: ChangeRoleInput): Promise<MemberView> {
  const member = await findMember(ctx, memberId);
  assertMayManage(ctx, member.role, input.role);
  if (input.role !== 'owner') await assertNotLastOwner(ctx, member);
  member.role = input.role;
  await ctx.em.transactional(async (em) => {
    await em.flush();
    await revokeInvitesBeyond(em, ctx.organization.id, member.user.id, input.role);
  });
  await notifyAccessChanged(ctx.em, `user:${member.user.id}`);
  return toMemberView(member);
}

export async function removeMember(ctx: OrganizationContext, memberId: string): Promise<void> {
  const member = await findMember(ctx, memberId);
  assertMayManage(ctx, member.role);
  await assertNotLastOwner(ctx, member);
  const userId = member.user.id;
  // A removed member is signed out everywhere: the removal commits with the revocation of every refresh token
  // of theirs, under the lock that refreshes take, so a session refreshing at that moment does not survive.
  await withSessionLock(ctx.em, userId, async (em) => {
    em.remove(member);
    await em.flush();
    await revokeInvitesBeyond(em, ctx.organization.id, userId, null);
    await revokeUserSessions(em, userId);
    await notifyAccessChanged(em, `user:${userId}`);
  });
}
