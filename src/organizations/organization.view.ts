import { z } from 'zod';
import { PLANS, ROLES, type Role } from '../common/types';
import type { Invite } from './invite.entity';
import type { OrganizationMember } from './organization-member.entity';
import type { Organization } from './organization.entity';

/** Wire forms of organizations, members and invites, shared by REST and GraphQL. */
export const organizationView = z.object({
  id: z.uuid(),
  name: z.string(),
  plan: z.enum(PLANS),
  /** The caller's role in it. */
  role: z.enum(ROLES),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type OrganizationView = z.infer<typeof organizationView>;

export const memberView = z.object({
  id: z.uuid(),
  organization_id: z.uuid(),
  user_id: z.uuid(),
  email: z.string(),
  name: z.string().nullable(),
  role: z.enum(ROLES),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type MemberView = z.infer<typeof memberView>;

export const INVITE_STATUSES = ['pending', 'accepted', 'expired'] as const;

export const inviteView = z.object({
  id: z.uuid(),
  organization_id: z.uuid(),
  email: z.string(),
  role: z.enum(ROLES),
  status: z.enum(INVITE_STATUSES),
  invited_by: z.uuid().nullable(),
  expires_at: z.iso.datetime(),
  accepted_at: z.iso.datetime().nullable(),
  created_at: z.iso.datetime(),
});
export type InviteView = z.infer<typeof inviteView>;

/** The answer to creating an invite: the token is shown this once, alone and inside the dashboard's invite link. */
export const createdInviteView = inviteView.extend({
  token: z.string(),
  /** The dashboard page that accepts the invite: `<PUBLIC_BASE_URL>/invite/<token>`. */
  url: z.string(),
});
export type CreatedInviteView = z.infer<typeof createdInviteView>;

/** What the holder of a usable invite token may see before signing up or accepting. */
export const invitePreviewView = z.object({
  organization_id: z.uuid(),
  organization_name: z.string(),
  email: z.string(),
  role: z.enum(ROLES),
  expires_at: z.iso.datetime(),
});
export type InvitePreviewView = z.infer<typeof invitePreviewView>;

export function toOrganizationView(organization: Organization, role: Role): OrganizationView {
  return {
    id: organization.id,
    name: organization.name,
    plan: organization.plan,
    role,
    created_at: organization.createdAt.toISOString(),
    updated_at: organization.updatedAt.toISOString(),
  };
}

/** `member.user` must be loaded. */
export function toMemberView(member: OrganizationMember): MemberView {
  return {
    id: member.id,
    organization_id: member.organization.id,
    user_id: member.user.id,
    email: member.user.email,
    name: member.user.name ?? null,
    role: member.role,
    created_at: member.createdAt.toISOString(),
    updated_at: member.updatedAt.toISOString(),
  };
}

export function inviteStatus(invite: Invite, now = Date.now()): (typeof INVITE_STATUSES)[number] {
  if (invite.acceptedAt) return 'accepted';
  return invite.expiresAt.getTime() <= now ? 'expired' : 'pending';
}

export function toInviteView(invite: Invite): InviteView {
  return {
    id: invite.id,
    organization_id: invite.organization.id,
    email: invite.email,
    role: invite.role,
    status: inviteStatus(invite),
    invited_by: invite.invitedBy?.id ?? null,
    expires_at: invite.expiresAt.toISOString(),
    accepted_at: invite.acceptedAt?.toISOString() ?? null,
    created_at: invite.createdAt.toISOString(),
  };
}

/** `invite.organization` must be loaded. */
export function toInvitePreviewView(invite: Invite): InvitePreviewView {
  return {
    organization_id: invite.organization.id,
    organization_name: invite.organization.name,
    email: invite.email,
    role: invite.role,
    expires_at: invite.expiresAt.toISOString(),
  };
}
