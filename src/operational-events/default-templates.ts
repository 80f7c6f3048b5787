import type { OperationalEventType } from './operational-events';

/**
 * The message a chat destination gets for an operational event when its link to the system source
 * has no template (docs/alerts.md). Ordinary embed configs in the
 * template language, so they render like any user template (chat_a and chat_c convert the embed)
 * and a user who wants another message copies one into a template and changes it.
 */
const RED = 0xd83c3e;
const ORANGE = 0xe8912d;
const GREEN = 0x2ea44f;

const destination = '{{ .Payload.data.destination.name }} ({{ .Payload.data.destination.type }})';
const common = {
  url: '{{ .Payload.dashboard_url }}',
  footer: '{{ .Payload.project.name }} · relay operational event{{ if gt .Payload.count 1 }} · {{ .Payload.count }} since {{ date .Payload.first_occurred_at }}{{ end }}',
  timestamp: '{{ .Payload.occurred_at }}',
};

export const DEFAULT_OPERATIONAL_TEMPLATES: Record<OperationalEventType, Record<string, unknown>> = {
  'relay.delivery.dead_lettered': {
    ...common,
    color: RED,
    title: '{{ if gt .Payload.count 1 }}{{ .Payload.count }} deliveries{{ else }}A delivery{{ end }} to {{ .Payload.data.destination.name }} failed for good',
    description:
      '{{ if gt .Payload.count 1 }}The latest: event{{ else }}Event{{ end }} {{ .Payload.data.event.type | default "(no type)" }} gave up after {{ .Payload.data.delivery.attempts }} attempt{{ if ne .Payload.data.delivery.attempts 1 }}s{{ end }} and is in the dead-letter queue.',
    fields: [
      { name: 'Destination', value: destination, inline: true },
      { name: 'Last answer', value: '{{ .Payload.data.last_attempt.error | default "none" | truncate 200 }}', inline: true },
      { name: 'Event', value: '{{ .Payload.data.event.id }} via {{ .Payload.data.event.endpoint_slug }}' },
    ],
  },
  'relay.destination.circuit_opened': {
    ...common,
    color: ORANGE,
    title: 'Circuit opened: {{ .Payload.data.destination.name }}',
    description:
      '{{ .Payload.data.failures }} connection errors or timeouts in a row. Deliveries to it wait until a probe gets an answer (next probe {{ date .Payload.data.next_probe_at "time" }} UTC).',
    fields: [
      { name: 'Destination', value: destination, inline: true },
      { name: 'Last error', value: '{{ .Payload.data.last_error | default "none" | truncate 200 }}', inline: true },
    ],
  },
  'relay.destination.circuit_closed': {
    ...common,
    color: GREEN,
    title: 'Circuit closed: {{ .Payload.data.destination.name }}',
    description: 'It answers again; waiting deliveries resume.{{ if .Payload.data.since }} The circuit had been open since {{ date .Payload.data.since }}.{{ end }}',
    fields: [{ name: 'Destination', value: destination, inline: true }],
  },
  'relay.destination.disabled': {
    ...common,
    color: RED,
    title: 'Destination paused: {{ .Payload.data.destination.name }}',
    description:
      'Its receiver answered {{ .Payload.data.status_code }} Gone, so the destination was paused: new events are not sent to it. Resume it once its URL is fixed.',
    fields: [
      { name: 'Destination', value: destination, inline: true },
      { name: 'Answer', value: '{{ .Payload.data.error | default "410 Gone" | truncate 200 }}', inline: true },
    ],
  },
  'relay.issue.opened': {
    ...common,
    color: ORANGE,
    title: 'Issue opened: {{ .Payload.data.destination.name }} · {{ .Payload.data.issue.cause }}',
    description: 'Deliveries to {{ .Payload.data.destination.name }} fail with {{ .Payload.data.issue.cause }}. The issue collects such failures until the destination succeeds again.',
    fields: [
      { name: 'Destination', value: destination, inline: true },
      { name: 'Last error', value: '{{ .Payload.data.issue.last_error | default "none" | truncate 200 }}', inline: true },
    ],
  },
  'relay.issue.resolved': {
    ...common,
    color: GREEN,
    title: 'Issue resolved: {{ .Payload.data.destination.name }} · {{ .Payload.data.issue.cause }}',
    description:
      '{{ if eq .Payload.data.issue.resolved_by "user" }}Resolved by a user{{ else }}{{ .Payload.data.destination.name }} succeeds again{{ end }} after {{ .Payload.data.issue.failure_count }} failed attempt{{ if ne .Payload.data.issue.failure_count 1 }}s{{ end }} ({{ .Payload.data.issue.event_count }} event{{ if ne .Payload.data.issue.event_count 1 }}s{{ end }}) since {{ date .Payload.data.issue.first_seen_at }}.',
    fields: [{ name: 'Destination', value: destination, inline: true }],
  },
  'relay.source.schema_changed': {
    ...common,
    color: ORANGE,
    title:
      '{{ if eq .Payload.data.change.kind "new_event_type" }}New event type on {{ .Payload.data.source.name }}: {{ .Payload.data.event_type | default "(none)" }}{{ else }}Payloads changed: {{ .Payload.data.source.name }} · {{ .Payload.data.event_type | default "(no type)" }}{{ end }}',
    description:
      '{{ if eq .Payload.data.change.kind "new_event_type" }}{{ .Payload.data.source.name }} sent an event type it never sent before.{{ else }}An event no longer has the shape learned from the ones before it.{{ end }}',
    fields: [
      // A field whose name and value render empty is left out.
      { name: '{{ if len .Payload.data.change.removed }}Removed{{ end }}', value: '{{ join .Payload.data.change.removed ", " | truncate 900 }}' },
      { name: '{{ if len .Payload.data.change.retyped }}Type changed{{ end }}', value: '{{ range $i, $r := .Payload.data.change.retyped }}{{ if $i }}, {{ end }}{{ $r.path }} ({{ join $r.from "|" }} → {{ join $r.to "|" }}){{ end }}' },
      { name: '{{ if len .Payload.data.change.added }}Added{{ end }}', value: '{{ join .Payload.data.change.added ", " | truncate 900 }}' },
      { name: 'Event', value: '{{ .Payload.data.event.id }} via {{ .Payload.data.source.slug }}' },
    ],
  },
  'relay.source.silent': {
    ...common,
    color: RED,
    title: 'Source silent: {{ .Payload.data.source.name }}',
    description:
      'No event since {{ if .Payload.data.last_event_at }}{{ date .Payload.data.last_event_at }}{{ else }}{{ date .Payload.data.silent_since }} (none yet){{ end }}; it was expected at least every {{ .Payload.data.expectation.interval_seconds }} s ({{ .Payload.data.expectation.mode }}).',
    fields: [{ name: 'Source', value: '{{ .Payload.data.source.name }} ({{ .Payload.data.source.slug }})', inline: true }],
  },
  'relay.source.resumed': {
    ...common,
    color: GREEN,
    title: 'Source sends again: {{ .Payload.data.source.name }}',
    description: 'Events arrive again (the first: {{ .Payload.data.event.type | default "(no type)" }}) after a silence since {{ date .Payload.data.silent_since }}.',
    fields: [{ name: 'Source', value: '{{ .Payload.data.source.name }} ({{ .Payload.data.source.slug }})', inline: true }],
  },
};

/** The built-in template of an operational event type; null for any other type. */
export function defaultOperationalTemplate(eventType: string): Record<string, unknown> | null {
  return (DEFAULT_OPERATIONAL_TEMPLATES as Record<string, Record<string, unknown>>)[eventType] ?? null;
}
