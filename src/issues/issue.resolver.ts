import { Arg, Args, Field, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import { BulkActionType } from '../bulk-actions/bulk-action.resolver';
import type { ProjectContext } from '../common/request-context';
import type { DestinationType as DestinationKind } from '../common/types';
import { PageArgs, PageOf } from '../graphql/page';
import { Scoped } from '../graphql/scoped';
import type { IssueCause } from './issue-cause';
import type { IssueState } from './issue.entity';
import { countIssues, getIssue, listIssues, retryIssue, updateIssue } from './issue.service';
import type { IssueCountsView, IssueView } from './issue.view';

@ObjectType('IssueDestination')
class IssueDestinationType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field(() => String) type!: DestinationKind;
}

@ObjectType('IssueSource')
class IssueSourceType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() slug!: string;
}

/** GraphQL shape of IssueView. */
@ObjectType('Issue', { description: "Failures of one destination with one cause (docs/alerts.md#issues), or a source's changed payloads or silence (docs/schemas.md)." })
class IssueType implements IssueView {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'projectId' }) project_id!: string;
  @Field(() => IssueDestinationType, { nullable: true, description: "Null for a source's issue." }) destination!: IssueDestinationType | null;
  @Field(() => IssueSourceType, { nullable: true, description: 'The source of a schema_changed or source_silent issue.' }) source!: IssueSourceType | null;
  @Field(() => String, { name: 'eventType', nullable: true, description: 'The event type whose payloads changed (schema_changed).' }) event_type!: string | null;
  @Field(() => String, {
    description:
      'http_3xx, http_4xx, http_5xx, platform_error, timeout, connection_refused, connection_error, transform_error, template_error, circuit_open or configuration; for a source: schema_changed or source_silent.',
  })
  cause!: IssueCause;
  @Field(() => String, { description: 'open, acknowledged, resolved or ignored.' }) state!: IssueState;
  @Field({ name: 'firstSeenAt' }) first_seen_at!: string;
  @Field({ name: 'lastSeenAt' }) last_seen_at!: string;
  @Field(() => Int, { name: 'failureCount', description: 'Failed attempts.' }) failure_count!: number;
  @Field(() => Int, { name: 'eventCount', description: 'Events whose delivery failed this way.' }) event_count!: number;
  @Field(() => Int, { name: 'lastStatusCode', nullable: true }) last_status_code!: number | null;
  @Field(() => String, { name: 'lastError', nullable: true }) last_error!: string | null;
  @Field(() => Int, { name: 'successStreak', description: 'Successful attempts of the destination in a row since the last failure; 3 resolve the issue.' })
  success_streak!: number;
  @Field(() => String, { name: 'resolvedAt', nullable: true }) resolved_at!: string | null;
  @Field(() => String, { name: 'resolvedBy', nullable: true, description: 'auto or user.' }) resolved_by!: IssueView['resolved_by'];
  @Field({ name: 'createdAt' }) created_at!: string;
  @Field({ name: 'updatedAt' }) updated_at!: string;
}

@ObjectType()
class IssuePage extends PageOf(IssueType) {}

@ObjectType('IssueCounts')
class IssueCountsType implements IssueCountsView {
  @Field(() => Int) open!: number;
  @Field(() => Int) acknowledged!: number;
  @Field(() => Int) ignored!: number;
  @Field(() => Int) resolved!: number;
}

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

@Resolver(() => IssueType)
export class IssueResolver {
  @Query(() => IssuePage, { description: 'Issues, newest first; by state, destination and cause.' })
  issues(
    @Scoped(read) ctx: ProjectContext,
    @Args() page: PageArgs,
    @Arg('state', () => String, { nullable: true }) state?: string,
    @Arg('destinationId', () => ID, { nullable: true }) destinationId?: string,
    @Arg('cause', () => String, { nullable: true }) cause?: string,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
    @Arg('endpointId', () => ID, { nullable: true, description: "A source's issues." }) endpointId?: string,
  ): Promise<IssuePage> {
    return listIssues(ctx, { ...page, state, destination_id: destinationId, endpoint_id: endpointId, cause });
  }

  @Query(() => IssueType)
  issue(@Arg('id', () => ID) id: string, @Scoped(read) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<IssueType> {
    return getIssue(ctx, id);
  }

  @Query(() => IssueCountsType, { description: 'How many issues the project has in each state.' })
  issueCounts(@Scoped(read) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<IssueCountsType> {
    return countIssues(ctx);
  }

  @Mutation(() => IssueType, { description: 'Acknowledge, ignore, resolve or reopen an issue (acknowledging or resolving a schema_changed issue accepts its changes).' })
  updateIssue(
    @Arg('id', () => ID) id: string,
    @Arg('state') state: string,
    @Scoped(write) ctx: ProjectContext,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<IssueType> {
    return updateIssue(ctx, id, { state });
  }

  @Mutation(() => BulkActionType, { description: 'Retries every delivery the issue affected (a bulk retry); returns the bulk action.' })
  retryIssue(
    @Arg('id', () => ID) id: string,
    @Scoped(write) ctx: ProjectContext,
    @Arg('idempotencyKey', () => String, { nullable: true }) idempotencyKey?: string,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<BulkActionType> {
    return retryIssue(ctx, id, { idempotency_key: idempotencyKey });
  }
}
