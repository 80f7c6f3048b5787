import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { gql, useQuery } from 'urql';

export type Role = 'viewer' | 'developer' | 'admin' | 'owner';
/** The API's permission levels (src/auth/permissions.ts): the minimum role for each. */
export type Permission = 'read' | 'write' | 'admin' | 'owner';

const RANK: Record<Role, number> = { viewer: 0, developer: 1, admin: 2, owner: 3 };
const NEEDS: Record<Permission, Role> = { read: 'viewer', write: 'developer', admin: 'admin', owner: 'owner' };

export function roleAllows(role: Role | undefined, permission: Permission): boolean {
  return role !== undefined && RANK[role] >= RANK[NEEDS[permission]];
}

export interface Organization {
  id: string;
  name: string;
  plan: string;
  role: Role;
}
export interface Project {
  id: string;
  organizationId: string;
  name: string;
  slug: string;
}
export interface User {
  id: string;
  email: string;
  name: string | null;
}

const WORKSPACE = gql`
  query Workspace {
    me { id email name }
    organizations(limit: 200) { data { id name plan role } }
    projects(limit: 200) { data { id organizationId name slug } }
  }
`;

export interface Workspace {
  user: User;
  organizations: Organization[];
  projects: Project[];
  project: Project;
  organization: Organization;
  /** Your role in the current project's organization. */
  role: Role;
  can(permission: Permission): boolean;
  selectProject(projectId: string): void;
  /** Re-reads organizations and projects (after creating one). */
  reload(): void;
}

const WorkspaceContext = createContext<Workspace | null>(null);
const PROJECT_KEY = 'relay.projectId';

/** Makes `projectId` the current project when the workspace next loads (after joining an organization). */
export function rememberProject(projectId: string): void {
  localStorage.setItem(PROJECT_KEY, projectId);
}

/** Loads the signed-in user's organizations and projects; renders `fallback` until they are known. */
export function WorkspaceProvider({ children, fallback }: { children: ReactNode; fallback: (error?: string) => ReactNode }) {
  const [{ data, error }, reexecute] = useQuery<{ me: User; organizations: { data: Organization[] }; projects: { data: Project[] } }>({
    query: WORKSPACE,
    requestPolicy: 'network-only',
  });
  // A link may name its project (`?project=`, as operational events' dashboard_url does): it wins over the last one used.
  const [projectId, setProjectId] = useState(() => new URLSearchParams(window.location.search).get('project') ?? localStorage.getItem(PROJECT_KEY));
  const selectProject = useCallback((id: string) => {
    localStorage.setItem(PROJECT_KEY, id);
    setProjectId(id);
  }, []);
  const reload = useCallback(() => reexecute({ requestPolicy: 'network-only' }), [reexecute]);

  const value = useMemo<Workspace | null>(() => {
    if (!data) return null;
    const projects = data.projects.data;
    const organizations = data.organizations.data;
    const project = projects.find((p) => p.id === projectId) ?? projects[0];
    const organization = organizations.find((o) => o.id === project?.organizationId);
    if (!project || !organization) return null;
    const role = organization.role;
    return {
      user: data.me,
      organizations,
      projects,
      project,
      organization,
      role,
      can: (permission) => roleAllows(role, permission),
      selectProject,
      reload,
    };
  }, [data, projectId, selectProject, reload]);

  useEffect(() => {
    if (value && value.project.id !== projectId) localStorage.setItem(PROJECT_KEY, value.project.id);
  }, [value, projectId]);

  if (!value) return <>{fallback(error ? error.message : data ? 'You have no project yet.' : undefined)}</>;
  return <WorkspaceContext.Provider value={value}>{children}</WorkspaceContext.Provider>;
}

/** The signed-in user, the current organization/project and your role in it. */
export function useWorkspace(): Workspace {
  const value = useContext(WorkspaceContext);
  if (!value) throw new Error('useWorkspace outside WorkspaceProvider');
  return value;
}

/** Shorthand: may the current user do this in the current project? */
export function useCan(permission: Permission): boolean {
  return useWorkspace().can(permission);
}
