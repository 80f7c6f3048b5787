import { CHAT_PLATFORMS, renderMessage } from '../formatting/index';
import { DEFAULT_OPERATIONAL_TEMPLATES, defaultOperationalTemplate } from './default-templates';
import { OPERATIONAL_EVENT_TYPES, type OperationalEventType, operationalEnvelope } from './operational-events';

const destination = { id: '01a2177c-0000-7000-8000-000000000001', name: 'Orders <hook>', type: 'webhook' };
const source = { id: '01a2177c-0000-7000-8000-000000000009', name: 'Orders source', slug: 'shop' };
const issue = {
  id: '01a2177c-0000-7000-8000-000000000003',
  cause: 'http_5xx',
  first_seen_at: '2026-11-26T09:00:00.000Z',
  last_seen_at: '2026-11-26T10:00:00.000Z',
  failure_count: 12,
  event_count: 4,
  last_status_code: 503,
  last_error: 'HTTP 503 Service Unavailable',
  resolved_at: null,
  resolved_by: null,
};
const DATA: Record<OperationalEventType, Record<string, unknown>> = {
  'relay.delivery.dead_lettered': {
    destination,
    event: { id: '01a2177c-0000-7000-8000-000000000002', type: 'order.paid', endpoint_id: 'e', endpoint_slug: 'shop' },
    delivery: { id: 'd', attempts: 7, dead_lettered_at: '2026-11-26T10:00:00.000Z' },
    last_attempt: { status_code: 500, error: 'HTTP 500 Internal Server Error' },
  },
  'relay.destination.circuit_opened': { destination, failures: 5, since: '2026-11-26T10:00:00.000Z', next_probe_at: '2026-11-26T10:00:30.000Z', last_error: 'timeout' },
  'relay.destination.circuit_closed': { destination, failures: 6, since: '2026-11-26T10:00:00.000Z', closed_at: '2026-11-26T10:05:00.000Z' },
  'relay.destination.disabled': { destination, reason: 'receiver_gone', paused_at: '2026-11-26T10:00:00.000Z', status_code: 410, error: 'HTTP 410 Gone' },
  'relay.issue.opened': { destination, issue: { ...issue, state: 'open', failure_count: 1, event_count: 1 }, event: { id: 'e1', type: 'order.paid' } },
  'relay.issue.resolved': { destination, issue: { ...issue, state: 'resolved', resolved_at: '2026-11-26T10:09:00.000Z', resolved_by: 'auto' } },
  'relay.source.schema_changed': {
    source,
    event_type: 'order.paid',
    change: { id: 'c1', kind: 'changed', added: [], removed: ['customer.email'], retyped: [{ path: 'total', from: ['number'], to: ['string'] }], detected_at: '2026-11-26T10:00:00.000Z' },
    event: { id: 'e1', received_at: '2026-11-26T10:00:00.000Z' },
    schema: { id: 's1', event_count: 120, learned_count: 40 },
    issue: { ...issue, cause: 'schema_changed', state: 'open' },
  },
  'relay.source.silent': {
    source,
    expectation: { mode: 'expected_interval', interval_seconds: 21600 },
    last_event_at: '2026-11-26T04:00:00.000Z',
    silent_since: '2026-11-26T04:00:00.000Z',
    issue: { ...issue, cause: 'source_silent', state: 'open' },
  },
  'relay.source.resumed': {
    source,
    silent_since: '2026-11-26T04:00:00.000Z',
    resumed_at: '2026-11-26T10:00:00.000Z',
    event: { id: 'e2', type: 'order.paid' },
    issue: { ...issue, cause: 'source_silent', state: 'resolved', resolved_by: 'auto' },
  },
};

function envelope(type: OperationalEventType, count = 1) {
  return operationalEnvelope(
    {
      projectId: 'p1',
      projectName: 'Shop',
      type,
      data: DATA[type],
      count,
      firstOccurredAt: new Date('2026-11-26T09:59:10.000Z'),
      lastOccurredAt: new Date('2026-11-26T10:00:00.000Z'),
    },
    'https://relay.example',
  );
}

const meta = (type: string) => ({ EventType: type, EventID: 'x', EndpointID: 'y', EndpointSlug: 'relay-system-p1', DestinationID: 'z', ReceivedAt: '2026-11-26T10:00:01.000Z', Headers: {} });

describe('operational events: the envelope and the default chat messages', () => {
  it('the envelope points at the destination page of the right project', () => {
    expect(envelope('relay.destination.disabled')).toEqual({
      type: 'relay.destination.disabled',
      occurred_at: '2026-11-26T10:00:00.000Z',
      count: 1,
      first_occurred_at: '2026-11-26T09:59:10.000Z',
      project: { id: 'p1', name: 'Shop' },
      dashboard_url: `https://relay.example/destinations/${destination.id}?project=p1`,
      data: DATA['relay.destination.disabled'],
    });
  });

  it.each(OPERATIONAL_EVENT_TYPES)('%s renders on every chat platform, naming the destination', (type) => {
    expect(defaultOperationalTemplate(type)).toBe(DEFAULT_OPERATIONAL_TEMPLATES[type]);
    for (const platform of CHAT_PLATFORMS) {
      const text = JSON.stringify(renderMessage({ platform, templateConfig: defaultOperationalTemplate(type), payload: envelope(type, 3), meta: meta(type) }));
      expect(text).toContain('Orders');
      expect(text).not.toMatch(/undefined|\{\{|\[object Object\]/);
      expect(text).toContain('3 since 2026-11-26 09:59 UTC');
    }
  });

  it('says what happened in words (chat_b embed)', () => {
    const render = (type: OperationalEventType, count = 1) =>
      (renderMessage({ platform: 'chat_b', templateConfig: defaultOperationalTemplate(type), payload: envelope(type, count), meta: meta(type) }).embeds as Array<Record<string, unknown>>)[0];
    expect(render('relay.delivery.dead_lettered')).toMatchObject({
      title: 'A delivery to Orders <hook> failed for good',
      description: 'Event order.paid gave up after 7 attempts and is in the dead-letter queue.',
      url: `https://relay.example/destinations/${destination.id}?project=p1`,
      color: 0xd83c3e,
      timestamp: '2026-11-26T10:00:00.000Z',
    });
    expect(render('relay.delivery.dead_lettered', 4)).toMatchObject({
      title: '4 deliveries to Orders <hook> failed for good',
      description: 'The latest: event order.paid gave up after 7 attempts and is in the dead-letter queue.',
    });
    expect(render('relay.destination.circuit_opened').description).toBe(
      '5 connection errors or timeouts in a row. Deliveries to it wait until a probe gets an answer (next probe 10:00:30 UTC).',
    );
    expect(render('relay.destination.circuit_closed').description).toBe('It answers again; waiting deliveries resume. The circuit had been open since 2026-11-26 10:00 UTC.');
    expect(render('relay.issue.resolved')).toMatchObject({
      title: 'Issue resolved: Orders <hook> · http_5xx',
      description: 'Orders <hook> succeeds again after 12 failed attempts (4 events) since 2026-11-26 09:00 UTC.',
      url: `https://relay.example/issues/${issue.id}?project=p1`,
    });
    expect(render('relay.source.schema_changed')).toMatchObject({
      title: 'Payloads changed: Orders source · order.paid',
      url: `https://relay.example/endpoints/${source.id}?project=p1`,
      fields: [
        { name: 'Removed', value: 'customer.email' },
        { name: 'Type changed', value: 'total (number → string)' },
        { name: 'Event', value: 'e1 via shop' },
      ],
    });
    expect(render('relay.source.silent').description).toBe('No event since 2026-11-26 04:00 UTC; it was expected at least every 21600 s (expected_interval).');
    expect(render('relay.source.resumed').title).toBe('Source sends again: Orders source');
    expect(defaultOperationalTemplate('push')).toBeNull();
  });
});
