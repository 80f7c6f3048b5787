import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Args, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { paginationQuery } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import { parseInput, snakeKeys } from '../common/validation';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import {
  createTransform,
  createTransformInput,
  deleteTransform,
  getTransform,
  listTransforms,
  previewTransform,
  previewTransformInput,
  updateTransform,
  updateTransformInput,
} from './transform.service';
import type { TransformPreviewView, TransformView } from './transform.view';

@ObjectType('Transform')
export class TransformType implements TransformView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'projectId' }) project_id!: string;
  @Field() name!: string;
  @Field({ description: 'JSONata, evaluated against the payload.' }) expression!: string;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType()
class TransformPage extends PageOf(TransformType) {}

@InputType()
class TransformInput {
  @Field({ nullable: true }) name?: string;
  @Field({ nullable: true }) expression?: string;
}

@ObjectType('TransformPreviewError')
class TransformPreviewErrorType implements NonNullable<TransformPreviewView['error']> {
  @Field(() => String, { description: 'transform_failed, transform_timeout or transform_empty' }) code!: NonNullable<TransformPreviewView['error']>['code'];
  @Field() message!: string;
  @Field(() => Int, { nullable: true, description: 'Character position in the expression, when jsonata knows it.' }) position?: number;
}

@ObjectType('TransformPreview')
class TransformPreviewType implements TransformPreviewView {
  @Field(() => GraphQLJSON, { nullable: true, description: 'What the transform returned; null when it failed.' }) result!: unknown;
  @Field(() => TransformPreviewErrorType, { nullable: true }) error!: TransformPreviewErrorType | null;
}

@InputType()
class TransformPreviewInput {
  @Field() expression!: string;
  @Field(() => ID, { nullable: true, description: 'A stored event to run against; or give payload.' }) eventId?: string;
  @Field(() => GraphQLJSON, { nullable: true, description: 'A sample body; or give eventId.' }) payload?: unknown;
}

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

@Resolver(() => TransformType)
export class TransformResolver {
  @Query(() => TransformPage)
  transforms(@Scoped(read) ctx: ProjectContext, @Args() page: PageArgs, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<TransformPage> {
    return listTransforms(ctx, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => TransformType)
  transform(@Arg('id', () => ID) id: string, @Scoped(read) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<TransformType> {
    return getTransform(ctx, id);
  }

  @Query(() => TransformPreviewType, { description: 'Runs an expression against a sample payload or a stored event; a failing expression answers error (with its position), not a GraphQL error.' })
  previewTransform(
    @Arg('input') input: TransformPreviewInput,
    @Scoped(read) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<TransformPreviewType> {
    return previewTransform(ctx, parseInput(previewTransformInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => TransformType)
  createTransform(@Arg('input') input: TransformInput, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<TransformType> {
    return createTransform(ctx, parseInput(createTransformInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => TransformType)
  updateTransform(
    @Arg('id', () => ID) id: string,
    @Arg('input') input: TransformInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<TransformType> {
    return updateTransform(ctx, id, parseInput(updateTransformInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => Boolean, { description: 'Refused (transform_in_use) while a link uses it.' })
  async deleteTransform(@Arg('id', () => ID) id: string, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<boolean> {
    await deleteTransform(ctx, id);
    return true;
  }
}
