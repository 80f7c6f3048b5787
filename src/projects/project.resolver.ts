import { Arg, Args, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { paginationQuery } from '../common/pagination';
import type { OrganizationContext, ProjectContext, RequestContext } from '../common/request-context';
import { parseInput, snakeKeys } from '../common/validation';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import {
  archiveProject,
  createProject,
  createProjectInput,
  getProject,
  listProjects,
  restoreProject,
  updateProject,
  updateProjectInput,
} from './project.service';
import type { ProjectView } from './project.view';

/** GraphQL shape of ProjectView: camelCase names over the same snake_case view the REST API returns. */
@ObjectType('Project')
export class ProjectType implements ProjectView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'organizationId' }) organization_id!: string;
  @Field(() => ID, { name: 'userId' }) user_id!: string;
  @Field() name!: string;
  @Field() slug!: string;
  @Field({ name: 'headerPrefix' }) header_prefix!: string;
  @Field(() => Int, { name: 'retentionDays', nullable: true }) retention_days!: number | null;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
  @Field(() => String, { name: 'archivedAt', nullable: true }) archived_at!: string | null;
}

@ObjectType()
class ProjectPage extends PageOf(ProjectType) {}

@InputType()
class ProjectInput {
  @Field({ nullable: true }) name?: string;
  @Field({ nullable: true }) slug?: string;
  @Field({ nullable: true }) headerPrefix?: string;
  @Field(() => Int, { nullable: true }) retentionDays?: number;
}

@Resolver(() => ProjectType)
export class ProjectResolver {
  @Query(() => ProjectPage, { description: 'Projects the caller can access.' })
  async projects(
    @Scoped({ scope: 'authenticated' }) ctx: RequestContext,
    @Args() page: PageArgs,
    @Arg('organizationId', () => ID, { nullable: true }) organizationId?: string,
    @Arg('includeArchived', { defaultValue: false }) includeArchived?: boolean,
  ): Promise<ProjectPage> {
    return listProjects(ctx, parseInput(paginationQuery, page, 'arguments'), { organization_id: organizationId, include_archived: includeArchived ?? false });
  }

  @Query(() => ProjectType)
  project(@Arg('projectId', () => ID) _projectId: string, @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext): ProjectType {
    return getProject(ctx);
  }

  @Mutation(() => ProjectType)
  createProject(
    @Arg('organizationId', () => ID) _organizationId: string,
    @Arg('input') input: ProjectInput,
    @Scoped({ scope: 'organization', permission: 'admin' }) ctx: OrganizationContext,
  ): Promise<ProjectType> {
    return createProject(ctx, parseInput(createProjectInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => ProjectType)
  updateProject(
    @Arg('projectId', () => ID) _projectId: string,
    @Arg('input') input: ProjectInput,
    @Scoped({ scope: 'project', permission: 'admin' }) ctx: ProjectContext,
  ): Promise<ProjectType> {
    return updateProject(ctx, parseInput(updateProjectInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => ProjectType, { description: 'Soft-delete: sets archivedAt.' })
  archiveProject(@Arg('projectId', () => ID) _projectId: string, @Scoped({ scope: 'project', permission: 'admin' }) ctx: ProjectContext): Promise<ProjectType> {
    return archiveProject(ctx);
  }

  @Mutation(() => ProjectType)
  restoreProject(@Arg('projectId', () => ID) _projectId: string, @Scoped({ scope: 'project', permission: 'admin' }) ctx: ProjectContext): Promise<ProjectType> {
    return restoreProject(ctx);
  }
}
