import { GraphQLJSONObject } from 'graphql-scalars';
import { Arg, Field, Float, ID, Int, Mutation, ObjectType, Query, Resolver } from 'type-graphql';
import type { ProjectContext } from '../common/request-context';
import type { SchemaAlerts, SilenceAlerts } from '../common/types';
import { Scoped } from '../graphql/scoped';
import { acceptEventSchema, getEventSchema, listSourceSchemas } from './schema.service';
import type { EventSchemaDetailView, SchemaChangeView, SourceSchemasView } from './schema.view';
import type { JsonType } from './shape';

/** GraphQL shapes of the schema views (src/schemas/schema.view.ts); counts of events are Float (they may pass 2^31). */

@ObjectType('SchemaExample')
class SchemaExampleType {
  @Field(() => ID, { name: 'eventId' }) event_id!: string;
  @Field(() => Float) count!: number;
  @Field({ name: 'firstSeenAt' }) first_seen_at!: string;
  @Field({ name: 'lastSeenAt' }) last_seen_at!: string;
}

@ObjectType('SchemaPath', { description: 'One JSON path of an inferred schema ($: the payload; a[]: array elements, counted per element).' })
class SchemaPathType {
  @Field() path!: string;
  @Field(() => GraphQLJSONObject, { description: 'How many times the path held each JSON type.' }) types!: Partial<Record<JsonType, number>>;
  @Field(() => Float) count!: number;
  @Field(() => Float, { description: 'Of the times its parent was an object: 1 means always.' }) frequency!: number;
  @Field() required!: boolean;
  @Field({ name: 'firstSeenAt' }) first_seen_at!: string;
  @Field({ name: 'lastSeenAt' }) last_seen_at!: string;
}

@ObjectType('SchemaRetyped')
class SchemaRetypedType {
  @Field() path!: string;
  @Field(() => [String]) from!: JsonType[];
  @Field(() => [String]) to!: JsonType[];
}

@ObjectType('SchemaChange', { description: 'What one event changed in an inferred schema.' })
class SchemaChangeType implements SchemaChangeView {
  @Field(() => ID) id!: string;
  @Field(() => String, { description: 'changed or new_event_type.' }) kind!: SchemaChangeView['kind'];
  @Field(() => [String]) added!: string[];
  @Field(() => [String]) removed!: string[];
  @Field(() => [SchemaRetypedType]) retyped!: SchemaRetypedType[];
  @Field(() => ID, { name: 'eventId' }) event_id!: string;
  @Field({ name: 'detectedAt' }) detected_at!: string;
  @Field({ description: 'It opened or grew an issue and emitted relay.source.schema_changed.' }) alerted!: boolean;
  @Field(() => ID, { name: 'issueId', nullable: true }) issue_id!: string | null;
  @Field(() => String, { name: 'acceptedAt', nullable: true }) accepted_at!: string | null;
}

@ObjectType('EventSchema', { description: "The inferred schema of one source's events of one type (docs/schemas.md)." })
class EventSchemaType {
  @Field(() => ID) id!: string;
  @Field(() => ID, { name: 'endpointId' }) endpoint_id!: string;
  @Field({ name: 'eventType' }) event_type!: string;
  @Field(() => Float, { name: 'eventCount' }) event_count!: number;
  @Field(() => Float, { name: 'learnedCount' }) learned_count!: number;
  @Field({ description: 'Past the warm-up: its changes alert.' }) warm!: boolean;
  @Field({ name: 'firstSeenAt' }) first_seen_at!: string;
  @Field({ name: 'lastSeenAt' }) last_seen_at!: string;
  @Field(() => Int, { name: 'pathCount' }) path_count!: number;
  @Field() truncated!: boolean;
  @Field(() => Int, { name: 'pendingChanges' }) pending_changes!: number;
  @Field(() => String, { name: 'lastChangeAt', nullable: true }) last_change_at!: string | null;
  @Field(() => [SchemaExampleType]) examples!: SchemaExampleType[];
  @Field(() => GraphQLJSONObject, { name: 'jsonSchema', description: 'The inferred JSON Schema (draft 2020-12).' }) json_schema!: Record<string, unknown>;
  @Field(() => [SchemaPathType], { nullable: true, description: 'In eventSchema(id) only.' }) paths?: SchemaPathType[];
  @Field(() => [SchemaChangeType], { nullable: true, description: 'The drift history, newest first; in eventSchema(id) only.' }) changes?: SchemaChangeType[];
}

@ObjectType('SchemaSource')
class SchemaSourceType {
  @Field(() => ID) id!: string;
  @Field() name!: string;
  @Field() slug!: string;
  @Field(() => String, { name: 'schemaAlerts' }) schema_alerts!: SchemaAlerts;
  @Field(() => String, { name: 'silenceAlerts' }) silence_alerts!: SilenceAlerts;
  @Field(() => Int, { name: 'expectedIntervalSeconds', nullable: true }) expected_interval_seconds!: number | null;
}

@ObjectType('SourceActivity')
class SourceActivityType {
  @Field(() => Float, { name: 'eventCount' }) event_count!: number;
  @Field(() => Float, { name: 'untrackedEventCount' }) untracked_event_count!: number;
  @Field(() => String, { name: 'firstEventAt', nullable: true }) first_event_at!: string | null;
  @Field(() => String, { name: 'lastEventAt', nullable: true }) last_event_at!: string | null;
  @Field(() => Int, { name: 'learnedIntervalSeconds', nullable: true }) learned_interval_seconds!: number | null;
  @Field(() => Int, { name: 'expectedWithinSeconds', nullable: true, description: 'The expectation in force; null: no silence alert.' }) expected_within_seconds!: number | null;
  @Field(() => String, { name: 'silentSince', nullable: true }) silent_since!: string | null;
}

@ObjectType('SourceSchemas')
class SourceSchemasType implements SourceSchemasView {
  @Field(() => SchemaSourceType) source!: SchemaSourceType;
  @Field(() => SourceActivityType) activity!: SourceActivityType;
  @Field(() => Int, { name: 'warmupEvents' }) warmup_events!: number;
  @Field(() => [EventSchemaType]) data!: EventSchemaType[];
}

const read = { scope: 'project', permission: 'read' } as const;
const write = { scope: 'project', permission: 'write' } as const;
const projectArg = { nullable: true, description: 'Defaults to the X-Project-Id header, else your default project.' };

@Resolver()
export class SchemaResolver {
  @Query(() => SourceSchemasType, { description: "A source's event types with their inferred JSON Schemas, its activity and silence expectation." })
  sourceSchemas(
    @Arg('endpointId', () => ID) endpointId: string,
    @Scoped(read) ctx: ProjectContext,
    @Arg('eventType', () => String, { nullable: true }) eventType?: string,
    @Arg('projectId', () => ID, projectArg) _projectId?: string,
  ): Promise<SourceSchemasType> {
    return listSourceSchemas(ctx, endpointId, { event_type: eventType });
  }

  @Query(() => EventSchemaType, { description: 'One inferred schema with its paths and drift history.' })
  eventSchema(@Arg('id', () => ID) id: string, @Scoped(read) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<EventSchemaDetailView> {
    return getEventSchema(ctx, id);
  }

  @Mutation(() => EventSchemaType, { description: 'Accepts the schema’s changes (their new shape becomes the expected one); its open schema_changed issue resolves.' })
  acceptSchemaChanges(@Arg('id', () => ID) id: string, @Scoped(write) ctx: ProjectContext, @Arg('projectId', () => ID, projectArg) _projectId?: string): Promise<EventSchemaDetailView> {
    return acceptEventSchema(ctx, id);
  }
}
