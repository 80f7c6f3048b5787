/**
 * The service's own events about deliveries and sources (docs/operational-events.md), emitted on each project's
 * system source as ordinary stored events. The shapes here are the documented, stable wire form.
 */
export const OPERATIONAL_EVENT_TYPES = [
  'relay.delivery.dead_lettered',
  'relay.destination.circuit_opened',
  'relay.destination.circuit_closed',
  'relay.destination.disabled',
  'relay.issue.opened',
  'relay.issue.resolved',
  'relay.source.schema_changed',
  'relay.source.silent',
  'relay.source.resumed',
] as const;
export type OperationalEventType = (typeof OPERATIONAL_EVENT_TYPES)[number];

export function isOperationalEventType(type: string): type is OperationalEventType {
  return (OPERATIONAL_EVENT_TYPES as readonly string[]).includes(type);
}

/** One coalesced group of occurrences, as the publisher reads it. */
export interface OccurrenceGroup {
  projectId: string;
  projectName: string;
  type: OperationalEventType;
  /** What the latest occurrence says (built in SQL by relay_attempt_effects). */
  data: Record<string, unknown>;
  count: number;
  firstOccurredAt: Date;
  lastOccurredAt: Date;
}

/** The payload of an operational event: the latest occurrence of its group, and how many it stands for. */
export interface OperationalEnvelope {
  type: OperationalEventType;
  occurred_at: string;
  /** Occurrences this event stands for: 1, or more when a burst was coalesced (`data` describes the latest). */
  count: number;
  first_occurred_at: string;
  project: { id: string; name: string };
  /** The dashboard page about it: the source's (its schemas), else the issue's, else the destination's. */
  dashboard_url: string;
  data: Record<string, unknown>;
}

export function operationalEnvelope(group: OccurrenceGroup, publicBaseUrl: string): OperationalEnvelope {
  const { issue, destination, source } = group.data as { issue?: { id?: string }; destination?: { id?: string }; source?: { id?: string } };
  const page = source?.id ? `/endpoints/${source.id}` : issue?.id ? `/issues/${issue.id}` : destination?.id ? `/destinations/${destination.id}` : '/events';
  return {
    type: group.type,
    occurred_at: group.lastOccurredAt.toISOString(),
    count: group.count,
    first_occurred_at: group.firstOccurredAt.toISOString(),
    project: { id: group.projectId, name: group.projectName },
    dashboard_url: `${publicBaseUrl}${page}?project=${group.projectId}`,
    data: group.data,
  };
}
