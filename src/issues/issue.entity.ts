import { Entity, Enum, Index, ManyToOne, type Opt, PrimaryKey, Property } from '@mikro-orm/core';
import { uuidv7 } from '../common/ids';
import { Destination } from '../destinations/destination.entity';
import { WebhookEndpoint } from '../endpoints/endpoint.entity';
import { Project } from '../projects/project.entity';
import { ISSUE_CAUSES, type IssueCause } from './issue-cause';

export const ISSUE_STATES = ['open', 'acknowledged', 'resolved', 'ignored'] as const;
export type IssueState = (typeof ISSUE_STATES)[number];

/**
 * Failures of one destination with one cause, from the first until the issue resolves (docs/alerts.md#issues);
 * or a source's trouble: its payloads changed (per event type) or it went silent (docs/schemas.md).
 * Written by SQL on the delivery path (relay_issue_failure / relay_issue_success, recording an
 * attempt), by the source monitor (src/schemas/source-issues.ts) and by relay_set_issue_state (a
 * user's change): read here, never flushed.
 */
@Entity({ tableName: 'issues' })
@Index({ name: 'issues_project_idx', properties: ['project', 'id'] })
@Index({ name: 'issues_destination_idx', properties: ['destination', 'id'] })
export class Issue {
  @PrimaryKey({ type: 'uuid' })
  id: string = uuidv7();

  @ManyToOne(() => Project, { deleteRule: 'cascade' })
  project!: Project;

  /** The destination whose deliveries fail; null for a source's issue. */
  @ManyToOne(() => Destination, { deleteRule: 'cascade', nullable: true })
  destination?: Destination | null;

  /** The source (endpoint) of a `schema_changed` or `source_silent` issue; null for a destination's. */
  @ManyToOne(() => WebhookEndpoint, { deleteRule: 'cascade', nullable: true })
  endpoint?: WebhookEndpoint | null;

  /** A `schema_changed` issue's event type. */
  @Property({ type: 'text', nullable: true })
  eventType?: string | null;

  @Enum({ items: () => ISSUE_CAUSES, type: 'text' })
  cause!: IssueCause;

  @Enum({ items: () => ISSUE_STATES, type: 'text', default: 'open' })
  state: IssueState & Opt = 'open';

  @Property({ type: 'timestamptz' })
  firstSeenAt!: Date;

  @Property({ type: 'timestamptz' })
  lastSeenAt!: Date;

  /** Failed attempts. */
  @Property({ type: 'int' })
  failureCount!: number;

  /** Distinct events whose delivery failed this way. */
  @Property({ type: 'int' })
  eventCount!: number;

  @Property({ type: 'int', nullable: true })
  lastStatusCode?: number | null;

  @Property({ type: 'text', nullable: true })
  lastError?: string | null;

  /** The destination's successful attempts since this issue's (or any) last failure. */
  @Property({ type: 'int' })
  successStreak!: number;

  @Property({ type: 'timestamptz', nullable: true })
  resolvedAt?: Date | null;

  @Property({ type: 'text', nullable: true })
  resolvedBy?: 'auto' | 'user' | null;

  @Property({ type: 'timestamptz' })
  createdAt!: Date;

  @Property({ type: 'timestamptz' })
  updatedAt!: Date;
}
