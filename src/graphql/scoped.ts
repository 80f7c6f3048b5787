import { createParameterDecorator } from 'type-graphql';
import { type AccessRequirement, authorize } from '../auth/access';
import type { GraphQLContext } from './context';

/**
 * `@Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext`:
 * declares what a resolver needs and hands it the authorized context. The
 * same `authorize` guard as REST (src/auth/access.ts); the project comes from
 * a `projectId` argument, the `X-Project-Id` header (or `projectId` in the
 * graphql-ws connection params), else the caller's default project.
 */
export function Scoped(requirement: AccessRequirement) {
  return createParameterDecorator<GraphQLContext>(({ context, args }) =>
    authorize(context.ctx, requirement, {
      projectId: typeof args.projectId === 'string' ? args.projectId : undefined,
      organizationId: typeof args.organizationId === 'string' ? args.organizationId : undefined,
    }),
  );
}
