import { GraphQLJSON } from 'graphql-scalars';
import { Arg, Args, Field, ID, InputType, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { paginationQuery } from '../common/pagination';
import type { ProjectContext } from '../common/request-context';
import type { RoutingRule } from '../common/types';
import { parseInput, snakeKeys } from '../common/validation';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import { createLink, createLinkInput, deleteLink, getLink, listLinks, updateLink, updateLinkInput } from './link.service';
import type { LinkView } from './link.view';

@ObjectType('EndpointDestination', { description: 'A link from an endpoint (source) to a destination.' })
export class LinkType implements LinkView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'endpointId' }) endpoint_id!: string;
  @Field(() => ID, { name: 'destinationId' }) destination_id!: string;
  @Field(() => ID, { name: 'templateId', nullable: true }) template_id!: string | null;
  @Field(() => ID, { name: 'transformId', nullable: true }) transform_id!: string | null;
  @Field(() => GraphQLJSON, { name: 'routingRules' }) routing_rules!: RoutingRule[];
  @Field({ name: 'headerPrefix' }) header_prefix!: string;
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType()
class LinkPage extends PageOf(LinkType) {}

@InputType()
class LinkInput {
  @Field(() => ID, { nullable: true, description: 'Create only.' }) destinationId?: string;
  @Field(() => ID, { nullable: true }) templateId?: string | null;
  @Field(() => ID, { nullable: true }) transformId?: string | null;
  @Field(() => GraphQLJSON, { nullable: true, description: '[{ name, logic, conditions: [{field, operator, value}], template_id?, transform_id? }]' }) routingRules?: unknown;
}

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

@Resolver(() => LinkType)
export class LinkResolver {
  @Query(() => LinkPage, { description: 'Destinations linked to an endpoint.' })
  links(
    @Arg('endpointId', () => ID) endpointId: string,
    @Args() page: PageArgs,
    @Scoped(read) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<LinkPage> {
    return listLinks(ctx, endpointId, parseInput(paginationQuery, page, 'arguments'));
  }

  @Query(() => LinkType)
  link(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('destinationId', () => ID) destinationId: string,
    @Scoped(read) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<LinkType> {
    return getLink(ctx, endpointId, destinationId);
  }

  @Mutation(() => LinkType)
  createLink(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('input') input: LinkInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<LinkType> {
    return createLink(ctx, endpointId, parseInput(createLinkInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => LinkType)
  updateLink(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('destinationId', () => ID) destinationId: string,
    @Arg('input') input: LinkInput,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<LinkType> {
    return updateLink(ctx, endpointId, destinationId, parseInput(updateLinkInput, snakeKeys(input), 'input'));
  }

  @Mutation(() => Boolean)
  async deleteLink(
    @Arg('endpointId', () => ID) endpointId: string,
    @Arg('destinationId', () => ID) destinationId: string,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<boolean> {
    await deleteLink(ctx, endpointId, destinationId);
    return true;
  }
}
