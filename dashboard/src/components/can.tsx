import type { ReactNode } from 'react';
import { useCan, type Permission } from '../lib/session';

/** Renders its children only when your role has `permission` in the current project (viewers see no write buttons). */
export function Can({ permission, children }: { permission: Permission; children: ReactNode }) {
  return useCan(permission) ? <>{children}</> : null;
}
