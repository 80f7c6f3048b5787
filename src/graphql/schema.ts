import 'reflect-metadata';
import type { GraphQLSchema } from 'graphql';
import { buildSchema, type NonEmptyArray } from 'type-graphql';
import { HealthResolver } from '../health/health.resolver';
import { ProjectResolver } from '../projects/project.resolver';

/** Every resolver class; add new ones here. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-function-type
export const resolvers: NonEmptyArray<Function> = [HealthResolver, ProjectResolver];

let cached: Promise<GraphQLSchema> | undefined;

/** Built once per process. `npm run schema:emit` writes it to schema/schema.graphql. */
export function buildRelaySchema(): Promise<GraphQLSchema> {
  cached ??= buildSchema({ resolvers, validate: false });
  return cached;
}
