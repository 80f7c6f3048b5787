import { Arg, Args, Field, ID, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { paginationQuery } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import { parseInput } from '../common/validation';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import { createApiKey, createApiKeyInput, getApiKey, listApiKeys, renameApiKey, revokeApiKey, updateApiKeyInput } from './api-key.service';
import type { ApiKeyView, CreatedApiKeyView } from './api-key.view';

@ObjectType('ApiKey')
export class ApiKeyType implements ApiKeyView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'projectId' }) project_id!: string;
  @Field() name!: string;
  @Field({ description: 'The first 12 characters of the key.' }) prefix!: string;
  @Field(() => ID, { name: 'createdBy', nullable: true }) created_by!: string | null;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
  @Field(() => String, { name: 'revokedAt', nullable: true }) revoked_at!: string | null;
}

@ObjectType('CreatedApiKey')
class CreatedApiKeyType extends ApiKeyType implements CreatedApiKeyView {
  @Field({ description: 'The full key, shown once: use it as "Authorization: Bearer <key>".' }) key!: string;
}

@ObjectType() class ApiKeyPage extends PageOf(ApiKeyType) {}

@Resolver()
export class ApiKeyResolver {
  @Query(() => ApiKeyPage)
  apiKeys(
    @Args() page: PageArgs,
    @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined,
    @Arg('includeRevoked', { defaultValue: true }) includeRevoked: boolean,
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
  ): Promise<ApiKeyPage> {
    return listApiKeys(ctx, parseInput(paginationQuery, page, 'arguments'), { include_revoked: includeRevoked });
  }

  @Query(() => ApiKeyType)
  apiKey(@Arg('id', () => ID) id: string, @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined, @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext): Promise<ApiKeyType> {
    return getApiKey(ctx, id);
  }

  @Mutation(() => CreatedApiKeyType)
  createApiKey(@Arg('name') name: string, @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined, @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext): Promise<CreatedApiKeyType> {
    return createApiKey(ctx, parseInput(createApiKeyInput, { name }, 'arguments'));
  }

  @Mutation(() => ApiKeyType)
  renameApiKey(
    @Arg('id', () => ID) id: string,
    @Arg('name') name: string,
    @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined,
    @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext,
  ): Promise<ApiKeyType> {
    return renameApiKey(ctx, id, parseInput(updateApiKeyInput, { name }, 'arguments'));
  }

  @Mutation(() => ApiKeyType, { description: 'Revokes the key (API keys are never deleted).' })
  revokeApiKey(@Arg('id', () => ID) id: string, @Arg('projectId', () => ID, { nullable: true }) _projectId: string | undefined, @Scoped({ scope: 'project', permission: 'write' }) ctx: ProjectContext): Promise<ApiKeyType> {
    return revokeApiKey(ctx, id);
  }
}
