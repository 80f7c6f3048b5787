import type { AccessRequirement } from '../../src/auth/access';
import { API_KEY_ROLE, PERMISSIONS, roleAllows, type Permission } from '../../src/auth/permissions';
import type { Role } from '../../src/common/types';

/**
 * docs/concepts.md#organizations-projects-and-roles as data, for the role-matrix tests: who may call an
 * operation with a given access requirement, and which permission each kind
 * of mutation must declare.
 */
export const CALLERS = ['owner', 'admin', 'developer', 'viewer', 'api_key'] as const;
export type Caller = (typeof CALLERS)[number];

export type Expected = { allowed: true } | { allowed: false; code: 'insufficient_role'; requiredRole: Role } | { allowed: false; code: 'user_session_required' };

export function expectedFor(access: AccessRequirement, caller: Caller): Expected {
  switch (access.scope) {
    case 'public':
    case 'authenticated':
      return { allowed: true };
    case 'user':
      return caller === 'api_key' ? { allowed: false, code: 'user_session_required' } : { allowed: true };
    case 'organization':
      if (caller === 'api_key') return { allowed: false, code: 'user_session_required' };
      return byRole(caller, access.permission);
    case 'project':
      return byRole(caller === 'api_key' ? API_KEY_ROLE : caller, access.permission);
  }
}

function byRole(role: Role, permission: Permission): Expected {
  return roleAllows(role, permission) ? { allowed: true } : { allowed: false, code: 'insufficient_role', requiredRole: PERMISSIONS[permission] };
}

/**
 * What docs/concepts.md#organizations-projects-and-roles says each mutation needs, by resource (the route's tag), with the
 * exceptions named by `METHOD path`. A new tag must be added here: the test
 * fails until someone decides which role its mutations need.
 */
const BY_TAG: Record<string, AccessRequirement['scope'] | Permission> = {
  auth: 'public',
  organizations: 'admin',
  members: 'admin',
  invites: 'admin',
  projects: 'admin',
  'api-keys': 'write',
  oauth: 'write',
  endpoints: 'write',
  filters: 'write',
  destinations: 'write',
  links: 'write',
  templates: 'write',
  transforms: 'write',
  events: 'write',
  deliveries: 'write',
  issues: 'write',
  schemas: 'write',
};
const EXCEPTIONS: Record<string, AccessRequirement['scope'] | Permission> = {
  'PATCH /v1/me': 'user',
  'POST /v1/organizations': 'user',
  'PUT /v1/organizations/:organizationId/plan': 'owner',
  'DELETE /v1/organizations/:organizationId': 'owner',
  'POST /v1/invites/accept': 'user',
  'POST /v1/invites/lookup': 'public',
  'POST /v1/oauth/:provider/authorize': 'public',
  'POST /v1/oauth/token': 'public',
  'POST /v1/templates/preview': 'read',
  'POST /v1/transforms/preview': 'read',
};

/** The scope or permission docs/concepts.md#organizations-projects-and-roles calls for, or undefined for a tag nobody classified yet. */
export function requiredByRulings(method: string, path: string, tag: string): AccessRequirement['scope'] | Permission | undefined {
  return EXCEPTIONS[`${method.toUpperCase()} ${path}`] ?? BY_TAG[tag];
}

export function declared(access: AccessRequirement): AccessRequirement['scope'] | Permission {
  return access.scope === 'project' || access.scope === 'organization' ? access.permission : access.scope;
}
