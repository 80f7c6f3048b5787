import { Arg, Args, Field, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { UserContext } from '../auth/access';
import { paginationQuery } from '../common/pagination';
import type { OrganizationContext, RequestContext } from '../common/request-context';
import { parseInput } from '../common/validation';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import { acceptInvite, acceptInviteInput, createInvite, createInviteInput, getInvite, listInvites, lookupInvite, lookupInviteInput, revokeInvite } from './invite.service';
import { changeMemberRole, changeRoleInput, getMember, listMembers, removeMember } from './member.service';
import {
  changePlan,
  changePlanInput,
  createOrganization,
  createOrganizationInput,
  deleteOrganization,
  getOrganization,
  listOrganizations,
  renameOrganization,
  updateOrganizationInput,
} from './organization.service';
import type { CreatedInviteView, InvitePreviewView, InviteView, MemberView, OrganizationView } from './organization.view';

type Role = OrganizationView['role'];

@ObjectType('Organization')
export class OrganizationType implements OrganizationView {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field(() => String) plan!: OrganizationView['plan'];
  @Field(() => String, { description: 'Your role in this organization.' }) role!: Role;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType('Member')
export class MemberType implements MemberView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'organizationId' }) organization_id!: string;
  @Field(() => ID, { name: 'userId' }) user_id!: string;
  @Field() email!: string;
  @Field(() => String, { nullable: true }) name!: string | null;
  @Field(() => String) role!: Role;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType('Invite')
export class InviteType implements InviteView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'organizationId' }) organization_id!: string;
  @Field() email!: string;
  @Field(() => String) role!: Role;
  @Field(() => String, { description: 'pending, accepted or expired' }) status!: InviteView['status'];
  @Field(() => ID, { name: 'invitedBy', nullable: true }) invited_by!: string | null;
  @Field({ name: 'expiresAt' }) expires_at!: string;
  @Field(() => String, { name: 'acceptedAt', nullable: true }) accepted_at!: string | null;
  @Field({ name: 'createdAt' }) created_at!: string;
}

@ObjectType('CreatedInvite')
class CreatedInviteType extends InviteType implements CreatedInviteView {
  @Field({ description: 'Shown once: send it to the invitee (signup inviteToken, or acceptInvite).' }) token!: string;
  @Field({ description: 'The dashboard link that accepts the invite (it carries the token).' }) url!: string;
}

@ObjectType() class OrganizationPage extends PageOf(OrganizationType) {}
@ObjectType() class MemberPage extends PageOf(MemberType) {}
@ObjectType() class InvitePage extends PageOf(InviteType) {}

@ObjectType('InvitePreview', { description: 'What a usable invite token is for.' })
class InvitePreviewType implements InvitePreviewView {
  @Field(() => ID, { name: 'organizationId' }) organization_id!: string;
  @Field({ name: 'organizationName' }) organization_name!: string;
  @Field() email!: string;
  @Field(() => String) role!: Role;
  @Field({ name: 'expiresAt' }) expires_at!: string;
}

@Resolver()
export class OrganizationResolver {
  @Query(() => OrganizationPage, { description: 'Your organizations, with your role in each.' })
  organizations(@Args() page: PageArgs, @Scoped({ scope: 'user' }) ctx: UserContext): Promise<OrganizationPage> {
    return listOrganizations(ctx, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => OrganizationType)
  organization(@Arg('organizationId', () => ID) _id: string, @Scoped({ scope: 'organization', permission: 'read' }) ctx: OrganizationContext): OrganizationType {
    return getOrganization(ctx);
  }

  @Mutation(() => OrganizationType)
  createOrganization(@Arg('name') name: string, @Scoped({ scope: 'user' }) ctx: UserContext): Promise<OrganizationType> {
    return createOrganization(ctx, parseInput(createOrganizationInput, { name }, 'arguments'));
  }

  @Mutation(() => OrganizationType)
  renameOrganization(
    @Arg('organizationId', () => ID) _id: string,
    @Arg('name') name: string,
    @Scoped({ scope: 'organization', permission: 'admin' }) ctx: OrganizationContext,
  ): Promise<OrganizationType> {
    return renameOrganization(ctx, parseInput(updateOrganizationInput, { name }, 'arguments'));
  }

  @Mutation(() => OrganizationType)
  changePlan(
    @Arg('organizationId', () => ID) _id: string,
    @Arg('plan') plan: string,
    @Scoped({ scope: 'organization', permission: 'owner' }) ctx: OrganizationContext,
  ): Promise<OrganizationType> {
    return changePlan(ctx, parseInput(changePlanInput, { plan }, 'arguments'));
  }

  @Mutation(() => Boolean)
  async deleteOrganization(@Arg('organizationId', () => ID) _id: string, @Scoped({ scope: 'organization', permission: 'owner' }) ctx: OrganizationContext): Promise<boolean> {
    await deleteOrganization(ctx);
    return true;
  }

  @Query(() => MemberPage)
  members(@Arg('organizationId', () => ID) _id: string, @Args() page: PageArgs, @Scoped({ scope: 'organization', permission: 'read' }) ctx: OrganizationContext): Promise<MemberPage> {
    return listMembers(ctx, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => MemberType)
  member(
    @Arg('organizationId', () => ID) _id: string,
    @Arg('memberId', () => ID) memberId: string,
    @Scoped({ scope: 'organization', permission: 'read' }) ctx: OrganizationContext,
  ): Promise<MemberType> {
    return getMember(ctx, memberId);
  }

  @Mutation(() => MemberType)
  changeMemberRole(
    @Arg('organizationId', () => ID) _id: string,
    @Arg('memberId', () => ID) memberId: string,
    @Arg('role') role: string,
    @Scoped({ scope: 'organization', permission: 'admin' }) ctx: OrganizationContext,
  ): Promise<MemberType> {
    return changeMemberRole(ctx, memberId, parseInput(changeRoleInput, { role }, 'arguments'));
  }

  @Mutation(() => Boolean)
  async removeMember(
    @Arg('organizationId', () => ID) _id: string,
    @Arg('memberId', () => ID) memberId: string,
    @Scoped({ scope: 'organization', permission: 'admin' }) ctx: OrganizationContext,
  ): Promise<boolean> {
    await removeMember(ctx, memberId);
    return true;
  }

  @Query(() => InvitePage)
  invites(@Arg('organizationId', () => ID) _id: string, @Args() page: PageArgs, @Scoped({ scope: 'organization', permission: 'admin' }) ctx: OrganizationContext): Promise<InvitePage> {
    return listInvites(ctx, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => InviteType)
  invite(
    @Arg('organizationId', () => ID) _id: string,
    @Arg('inviteId', () => ID) inviteId: string,
    @Scoped({ scope: 'organization', permission: 'admin' }) ctx: OrganizationContext,
  ): Promise<InviteType> {
    return getInvite(ctx, inviteId);
  }

  @Mutation(() => CreatedInviteType)
  createInvite(
    @Arg('organizationId', () => ID) _id: string,
    @Arg('email') email: string,
    @Arg('role') role: string,
    @Scoped({ scope: 'organization', permission: 'admin' }) ctx: OrganizationContext,
  ): Promise<CreatedInviteType> {
    return createInvite(ctx, parseInput(createInviteInput, { email, role }, 'arguments'));
  }

  @Mutation(() => Boolean)
  async revokeInvite(
    @Arg('organizationId', () => ID) _id: string,
    @Arg('inviteId', () => ID) inviteId: string,
    @Scoped({ scope: 'organization', permission: 'admin' }) ctx: OrganizationContext,
  ): Promise<boolean> {
    await revokeInvite(ctx, inviteId);
    return true;
  }

  @Query(() => InvitePreviewType, { description: 'What an invite token is for, with the errors accepting it would give (public: the token is the credential).' })
  invitePreview(@Arg('token') token: string, @Scoped({ scope: 'public' }) ctx: RequestContext): Promise<InvitePreviewType> {
    return lookupInvite(ctx, parseInput(lookupInviteInput, { token }, 'arguments'));
  }

  @Mutation(() => MemberType)
  acceptInvite(@Arg('token') token: string, @Scoped({ scope: 'user' }) ctx: UserContext): Promise<MemberType> {
    return acceptInvite(ctx, parseInput(acceptInviteInput, { token }, 'arguments'));
  }
}
