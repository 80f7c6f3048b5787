import type { Role } from '../common/types';

/**
 * The permission matrix of docs/concepts.md#organizations-projects-and-roles, as the minimum role each
 * permission needs. Routes and resolvers declare one of these; the guard in
 * src/auth/access.ts enforces it for REST and GraphQL alike.
 */
export const PERMISSIONS = {
  /** Read anything in a project or organization. */
  read: 'viewer',
  /** Endpoints, destinations, templates, transforms, filters, links, API keys; replay and cancel. */
  write: 'developer',
  /** Projects (create, rename, archive) and members other than owners. */
  admin: 'admin',
  /** Deleting the organization, changing its plan, managing owners. */
  owner: 'owner',
} as const satisfies Record<string, Role>;

export type Permission = keyof typeof PERMISSIONS;

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };

export function roleAllows(role: Role, permission: Permission): boolean {
  return RANK[role] >= RANK[PERMISSIONS[permission]];
}

/** The role an API key acts with inside its own project. */
export const API_KEY_ROLE: Role = 'developer';
