import { z } from 'zod';
import { pageSchema, paginationQuery } from '../common/pagination';
import { route } from '../http/route';
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
import { createdInviteView, invitePreviewView, inviteView, memberView, organizationView } from './organization.view';

const uuid = z.uuid({ message: 'must be a UUID' });
const orgParams = z.object({ organizationId: uuid });
const memberParams = orgParams.extend({ memberId: uuid });
const inviteParams = orgParams.extend({ inviteId: uuid });
const ORG = '/v1/organizations/:organizationId';

export const organizationRoutes = [
  route({
    method: 'get', path: '/v1/organizations', tag: 'organizations', summary: 'Your organizations, with your role in each',
    access: { scope: 'user' }, query: paginationQuery, response: pageSchema(organizationView),
    handler: (ctx, { query }) => listOrganizations(ctx, query),
  }),
  route({
    method: 'post', path: '/v1/organizations', tag: 'organizations', summary: 'Create an organization (you become its owner)',
    access: { scope: 'user' }, body: createOrganizationInput, response: organizationView, status: 201,
    handler: (ctx, { body }) => createOrganization(ctx, body),
  }),
  route({
    method: 'get', path: ORG, tag: 'organizations', summary: 'Get an organization',
    access: { scope: 'organization', permission: 'read' }, params: orgParams, response: organizationView,
    handler: async (ctx) => getOrganization(ctx),
  }),
  route({
    method: 'patch', path: ORG, tag: 'organizations', summary: 'Rename an organization',
    access: { scope: 'organization', permission: 'admin' }, params: orgParams, body: updateOrganizationInput, response: organizationView,
    handler: (ctx, { body }) => renameOrganization(ctx, body),
  }),
  route({
    method: 'put', path: `${ORG}/plan`, tag: 'organizations', summary: 'Change the plan (free, team, growth)',
    access: { scope: 'organization', permission: 'owner' }, params: orgParams, body: changePlanInput, response: organizationView,
    handler: (ctx, { body }) => changePlan(ctx, body),
  }),
  route({
    method: 'delete', path: ORG, tag: 'organizations', summary: 'Delete an organization with all its projects',
    access: { scope: 'organization', permission: 'owner' }, params: orgParams,
    handler: (ctx) => deleteOrganization(ctx),
  }),

  route({
    method: 'get', path: `${ORG}/members`, tag: 'members', summary: 'List members',
    access: { scope: 'organization', permission: 'read' }, params: orgParams, query: paginationQuery, response: pageSchema(memberView),
    handler: (ctx, { query }) => listMembers(ctx, query),
  }),
  route({
    method: 'get', path: `${ORG}/members/:memberId`, tag: 'members', summary: 'Get a member',
    access: { scope: 'organization', permission: 'read' }, params: memberParams, response: memberView,
    handler: (ctx, { params }) => getMember(ctx, params.memberId),
  }),
  route({
    method: 'patch', path: `${ORG}/members/:memberId`, tag: 'members', summary: 'Change a member’s role (owners: owner role needed)',
    access: { scope: 'organization', permission: 'admin' }, params: memberParams, body: changeRoleInput, response: memberView,
    handler: (ctx, { params, body }) => changeMemberRole(ctx, params.memberId, body),
  }),
  route({
    method: 'delete', path: `${ORG}/members/:memberId`, tag: 'members', summary: 'Remove a member (owners: owner role needed; never the last owner)',
    access: { scope: 'organization', permission: 'admin' }, params: memberParams,
    handler: (ctx, { params }) => removeMember(ctx, params.memberId),
  }),

  route({
    method: 'post', path: `${ORG}/invites`, tag: 'invites', summary: 'Invite an email with a role; the token is shown once',
    access: { scope: 'organization', permission: 'admin' }, params: orgParams, body: createInviteInput, response: createdInviteView, status: 201,
    handler: (ctx, { body }) => createInvite(ctx, body),
  }),
  route({
    method: 'get', path: `${ORG}/invites`, tag: 'invites', summary: 'List invites',
    access: { scope: 'organization', permission: 'admin' }, params: orgParams, query: paginationQuery, response: pageSchema(inviteView),
    handler: (ctx, { query }) => listInvites(ctx, query),
  }),
  route({
    method: 'get', path: `${ORG}/invites/:inviteId`, tag: 'invites', summary: 'Get an invite',
    access: { scope: 'organization', permission: 'admin' }, params: inviteParams, response: inviteView,
    handler: (ctx, { params }) => getInvite(ctx, params.inviteId),
  }),
  route({
    method: 'delete', path: `${ORG}/invites/:inviteId`, tag: 'invites', summary: 'Revoke an invite',
    access: { scope: 'organization', permission: 'admin' }, params: inviteParams,
    handler: (ctx, { params }) => revokeInvite(ctx, params.inviteId),
  }),
  route({
    method: 'post', path: '/v1/invites/lookup', tag: 'invites', summary: 'What an invite token is for (organization, email, role), with the errors accepting it would give',
    access: { scope: 'public' }, body: lookupInviteInput, response: invitePreviewView,
    handler: (ctx, { body }) => lookupInvite(ctx, body),
  }),
  route({
    method: 'post', path: '/v1/invites/accept', tag: 'invites', summary: 'Accept an invite sent to your email',
    access: { scope: 'user' }, body: acceptInviteInput, response: memberView, status: 201,
    handler: (ctx, { body }) => acceptInvite(ctx, body),
  }),
];
