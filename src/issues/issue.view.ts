import { z } from 'zod';
import { DESTINATION_TYPES } from '../common/types';
import { ISSUE_CAUSES } from './issue-cause';
import { type Issue, ISSUE_STATES } from './issue.entity';

/** The wire form of an issue (docs/alerts.md#issues). */
export const issueView = z.object({
  id: z.uuid(),
  project_id: z.uuid(),
  destination: z.object({ id: z.uuid(), name: z.string(), type: z.enum(DESTINATION_TYPES) }).nullable().describe("The destination whose deliveries fail; null for a source's issue"),
  source: z.object({ id: z.uuid(), name: z.string(), slug: z.string() }).nullable().describe('The source whose payloads changed or that went silent (causes schema_changed, source_silent); null for a destination\'s issue'),
  event_type: z.string().nullable().describe('The event type whose payloads changed (schema_changed)'),
  cause: z.enum(ISSUE_CAUSES).describe('http_3xx, http_4xx, http_5xx, platform_error, timeout, connection_refused, connection_error, transform_error, template_error, circuit_open, configuration; for a source: schema_changed or source_silent'),
  state: z.enum(ISSUE_STATES),
  first_seen_at: z.iso.datetime(),
  last_seen_at: z.iso.datetime(),
  failure_count: z.number().int().describe("Failed attempts; for a source's issue, the changes or silent spells it counts"),
  event_count: z.number().int().describe("Events whose delivery failed this way; for a source's issue, the events that showed a change"),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  success_streak: z.number().int().describe('Successful attempts of the destination in a row since the last failure; 3 resolve an open or acknowledged issue'),
  resolved_at: z.iso.datetime().nullable(),
  resolved_by: z.enum(['auto', 'user']).nullable(),
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
});
export type IssueView = z.infer<typeof issueView>;

export const issueCountsView = z.object({
  open: z.number().int(),
  acknowledged: z.number().int(),
  ignored: z.number().int(),
  resolved: z.number().int(),
});
export type IssueCountsView = z.infer<typeof issueCountsView>;

export function toIssueView(i: Issue): IssueView {
  return {
    id: i.id,
    project_id: i.project.id,
    destination: i.destination ? { id: i.destination.id, name: i.destination.name, type: i.destination.type } : null,
    source: i.endpoint ? { id: i.endpoint.id, name: i.endpoint.name, slug: i.endpoint.slug } : null,
    event_type: i.eventType ?? null,
    cause: i.cause,
    state: i.state,
    first_seen_at: i.firstSeenAt.toISOString(),
    last_seen_at: i.lastSeenAt.toISOString(),
    failure_count: i.failureCount,
    event_count: i.eventCount,
    last_status_code: i.lastStatusCode ?? null,
    last_error: i.lastError ?? null,
    success_streak: i.successStreak,
    resolved_at: i.resolvedAt?.toISOString() ?? null,
    resolved_by: i.resolvedBy ?? null,
    created_at: i.createdAt.toISOString(),
    updated_at: i.updatedAt.toISOString(),
  };
}
