import { Arg, Field, Float, ID, Int, ObjectType, Query, registerEnumType, Resolver } from 'type-graphql';
import type { ProjectContext } from '../common/request-context';
import { parseInput, snakeKeys } from '../common/validation';
import { Scoped } from '../graphql/scoped';
import type { MetricsRange } from './metrics-window';
import { getProjectMetrics, projectMetricsQuery } from './project-metrics.service';
import type { DestinationLatencyView, MetricsBucketView, ProjectMetricsView } from './project-metrics.view';

enum MetricsRangeEnum {
  HOUR = 'hour',
  DAY = 'day',
  WEEK = 'week',
}
registerEnumType(MetricsRangeEnum, { name: 'MetricsRange', description: 'HOUR: 60 one-minute buckets; DAY: 96 of 15 minutes; WEEK: 168 hourly.' });

@ObjectType('MetricsCounts')
class MetricsCountsType implements Omit<MetricsBucketView, 'start'> {
  @Field(() => Int, { name: 'eventsReceived', description: 'Events that arrived (filtered ones included).' }) events_received!: number;
  @Field(() => Int, { name: 'eventsFiltered' }) events_filtered!: number;
  @Field(() => Int, { name: 'deliveriesSucceeded' }) deliveries_succeeded!: number;
  @Field(() => Int, { name: 'deliveriesFailed', description: 'Failed for good (dead-lettered).' }) deliveries_failed!: number;
  @Field(() => Int, { name: 'deliveriesRetrying', description: 'Failed attempts with a retry scheduled.' }) deliveries_retrying!: number;
}

@ObjectType('MetricsBucket')
class MetricsBucketType extends MetricsCountsType implements MetricsBucketView {
  @Field({ description: 'ISO 8601 start of the bucket.' }) start!: string;
}

@ObjectType('MetricsTotals')
class MetricsTotalsType extends MetricsCountsType {
  @Field(() => Float, { name: 'successRate', nullable: true, description: 'succeeded / (succeeded + failed); null when nothing finished.' }) success_rate!: number | null;
}

@ObjectType('DestinationLatency')
class DestinationLatencyType implements DestinationLatencyView {
  @Field(() => ID, { name: 'destinationId' }) destination_id!: string;
  @Field({ name: 'destinationName' }) destination_name!: string;
  @Field(() => Int) attempts!: number;
  @Field(() => Float, { name: 'p50Ms' }) p50_ms!: number;
  @Field(() => Float, { name: 'p95Ms' }) p95_ms!: number;
}

@ObjectType('ProjectMetrics')
class ProjectMetricsType implements Omit<ProjectMetricsView, 'range'> {
  @Field(() => MetricsRangeEnum) range!: MetricsRange;
  @Field(() => ID, { name: 'endpointId', nullable: true }) endpoint_id!: string | null;
  @Field(() => Int, { name: 'bucketSeconds' }) bucket_seconds!: number;
  @Field() from!: string;
  @Field() to!: string;
  @Field(() => [MetricsBucketType], { description: 'Oldest first, every bucket present.' }) buckets!: MetricsBucketType[];
  @Field(() => MetricsTotalsType) totals!: MetricsTotalsType;
  @Field(() => [DestinationLatencyType]) latency!: DestinationLatencyType[];
  @Field(() => Int, { name: 'deadLetters', description: 'In the dead-letter queue now.' }) dead_letters!: number;
}

const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

@Resolver()
export class ProjectMetricsResolver {
  @Query(() => ProjectMetricsType, { description: 'Same as GET /v1/metrics (docs/api.md).' })
  projectMetrics(
    @Scoped({ scope: 'project', permission: 'read' }) ctx: ProjectContext,
    @Arg('range', () => MetricsRangeEnum, { defaultValue: MetricsRangeEnum.HOUR }) range: MetricsRangeEnum,
    @Arg('endpointId', () => ID, { nullable: true }) endpointId?: string,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<ProjectMetricsType> {
    return getProjectMetrics(ctx, parseInput(projectMetricsQuery, snakeKeys({ range, endpointId }), 'arguments'));
  }
}
