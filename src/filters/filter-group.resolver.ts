import { Arg, Args, Field, ID, InputType, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { paginationQuery } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import type { FilterOperator, Logic } from '../common/types';
import { parseInput, snakeKeys } from '../common/validation';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import {
  createFilterGroup,
  createFilterGroupInput,
  deleteFilterGroup,
  getFilterGroup,
  listFilterGroups,
  updateFilterGroup,
  updateFilterGroupInput,
} from './filter-group.service';
import type { FilterConditionView, FilterGroupView } from './filter-group.view';

@ObjectType('FilterCondition')
class FilterConditionType implements FilterConditionView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'filterId' }) filter_id!: string;
  @Field() field!: string;
  @Field(() => String) operator!: FilterOperator;
  @Field() value!: string;
  @Field(() => Int) position!: number;
}

@ObjectType('FilterGroup')
export class FilterGroupType implements FilterGroupView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'endpointId' }) endpoint_id!: string;
  @Field() name!: string;
  @Field(() => String) logic!: Logic;
  @Field({ name: 'isEnabled' }) is_enabled!: boolean;
  @Field(() => [FilterConditionType]) conditions!: FilterConditionType[];
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType()
class FilterGroupPage extends PageOf(FilterGroupType) {}

@InputType()
class FilterConditionInput {
  @Field() field!: string;
  @Field({ description: 'eq, neq, contains, not_contains, exists, not_exists, regex' }) operator!: string;
  @Field({ nullable: true }) value?: string;
}

@InputType()
class FilterGroupInput {
  @Field({ nullable: true }) name?: string;
  @Field({ nullable: true, description: 'AND or OR' }) logic?: string;
  @Field({ nullable: true }) isEnabled?: boolean;
  @Field(() => [FilterConditionInput], { nullable: true, description: 'Ordered; on update, replaces the whole list.' }) conditions?: FilterConditionInput[];
}

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

/** Plain objects for zod (type-graphql hands over class instances). */
function toInput(input: FilterGroupInput): Record<string, unknown> {
  return snakeKeys({ ...input, conditions: input.conditions?.map((c) => ({ ...c })) });
}

@Resolver(() => FilterGroupType)
export class FilterGroupResolver {
  @Query(() => FilterGroupPage)
  filterGroups(
    @Arg('endpointId', () => ID) endpointId: string,
    @Args() page: PageArgs,
    @Scoped(read) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<FilterGroupPage> {
    return listFilterGroups(ctx, endpointId, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => FilterGroupType)
  filterGroup(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('id', () => ID) id: string,
    @Scoped(read) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<FilterGroupType> {
    return getFilterGroup(ctx, endpointId, id);
  }

  @Mutation(() => FilterGroupType)
  createFilterGroup(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('input') input: FilterGroupInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<FilterGroupType> {
    return createFilterGroup(ctx, endpointId, parseInput(createFilterGroupInput, toInput(input), 'input'));
  }

  @Mutation(() => FilterGroupType)
  updateFilterGroup(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('id', () => ID) id: string,
    @Arg('input') input: FilterGroupInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<FilterGroupType> {
    return updateFilterGroup(ctx, endpointId, id, parseInput(updateFilterGroupInput, toInput(input), 'input'));
  }

  @Mutation(() => Boolean)
  async deleteFilterGroup(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('id', () => ID) id: string,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<boolean> {
    await deleteFilterGroup(ctx, endpointId, id);
    return true;
  }
}
