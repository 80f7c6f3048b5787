import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Args, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { paginationQuery } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import { parseInput, snakeKeys } from '../common/validation';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import type { PreviewError, PreviewResult } from './template-preview.service';
import {
  createTemplate,
  createTemplateInput,
  deleteTemplate,
  getTemplate,
  listTemplates,
  previewTemplate,
  previewTemplateInput,
  updateTemplate,
  updateTemplateInput,
} from './template.service';
import type { TemplateView } from './template.view';

@ObjectType('MessageTemplate')
export class TemplateType implements TemplateView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'projectId' }) project_id!: string;
  @Field() name!: string;
  @Field(() => GraphQLJSON) config!: Record<string, unknown>;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType()
class TemplatePage extends PageOf(TemplateType) {}

@ObjectType('PreviewError')
class PreviewErrorType implements PreviewError {
  @Field(() => String, { description: 'transform or template' }) stage!: PreviewError['stage'];
  @Field(() => String, { nullable: true, description: 'Template config path of the faulty string.' }) path?: string;
  @Field(() => Int, { nullable: true }) line?: number;
  @Field(() => Int, { nullable: true, description: 'Character position in the transform expression.' }) position?: number;
  @Field() message!: string;
}

@ObjectType('TemplatePreview')
class TemplatePreviewType implements PreviewResult {
  @Field(() => GraphQLJSON, { name: 'transformedPayload', nullable: true }) transformed_payload!: unknown;
  @Field(() => GraphQLJSON, { description: 'Per destination type: what it would receive; null when it could not be built.' }) outputs!: PreviewResult['outputs'];
  @Field(() => [PreviewErrorType]) errors!: PreviewErrorType[];
}

@InputType()
class TemplateInput {
  @Field({ nullable: true }) name?: string;
  @Field(() => GraphQLJSON, { nullable: true, description: 'v1 (flat) or v2 ({ version: 2, platforms: {...} })' }) config?: unknown;
}

@InputType()
class TemplatePreviewInput {
  @Field(() => ID, { nullable: true }) templateId?: string;
  @Field(() => GraphQLJSON, { nullable: true }) templateConfig?: unknown;
  @Field(() => ID, { nullable: true }) transformId?: string;
  @Field({ nullable: true }) transformExpression?: string;
  @Field(() => GraphQLJSON, { nullable: true, description: 'Sample body; or give eventId.' }) payload?: unknown;
  @Field(() => ID, { nullable: true }) eventId?: string;
  @Field({ nullable: true }) eventType?: string;
  @Field(() => [String], { nullable: true }) destinationTypes?: string[];
}

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

@Resolver(() => TemplateType)
export class TemplateResolver {
  @Query(() => TemplatePage)
  templates(@Scoped(read) ctx: ProjectContext, @Args() page: PageArgs, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<TemplatePage> {
    return listTemplates(ctx, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => TemplateType)
  template(@Arg('id', () => ID) id: string, @Scoped(read) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<TemplateType> {
    return getTemplate(ctx, id);
  }

  @Query(() => TemplatePreviewType, { description: 'Renders against a sample payload or a stored event without delivering.' })
  previewTemplate(
    @Arg('input') input: TemplatePreviewInput,
    @Scoped(read) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<TemplatePreviewType> {
    return previewTemplate(ctx, parseInput(previewTemplateInput, snakeKeys(input), 'input')) as Promise<TemplatePreviewType>;
  }

  @Mutation(() => TemplateType)
  createTemplate(@Arg('input') input: TemplateInput, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<TemplateType> {
    return createTemplate(ctx, parseInput(createTemplateInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => TemplateType)
  updateTemplate(
    @Arg('id', () => ID) id: string,
    @Arg('input') input: TemplateInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<TemplateType> {
    return updateTemplate(ctx, id, parseInput(updateTemplateInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => Boolean, { description: 'Refused (template_in_use) while a link uses it.' })
  async deleteTemplate(@Arg('id', () => ID) id: string, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<boolean> {
    await deleteTemplate(ctx, id);
    return true;
  }
}
