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
export function Scoped(requirement: AccessRequirement): ParameterDecorator {
  const decorator = createParameterDecorator<GraphQLContext>(({ context, args }) =>
    authorize(context.ctx, requirement, {
      projectId: typeof args.projectId === 'string' ? args.projectId : undefined,
      projectFrom: 'projectId',
      organizationId: typeof args.organizationId === 'string' ? args.organizationId : undefined,
    }),
  );
  return (target, propertyKey, index) => {
    const byMethod = scopedRequirements.get(target.constructor) ?? new Map<string, AccessRequirement>();
    byMethod.set(String(propertyKey), requirement);
    scopedRequirements.set(target.constructor, byMethod);
    decorator(target, propertyKey!, index);
  };
}

/**
 * What each resolver method declared with `@Scoped`, by class and method name:
 * the GraphQL twin of `v1Routes[].access`, read by the role-matrix test.
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const scopedRequirements = new Map<Function, Map<string, AccessRequirement>>();
