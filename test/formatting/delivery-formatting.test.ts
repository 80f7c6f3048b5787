import { MessageTemplate } from '../../src/templates/message-template.entity';
import { Transform } from '../../src/transforms/transform.entity';
import { attemptsOf, type DeliveryStack, FAST_RETRIES, sql, startDeliveryStack, waitForDeliveries, workflowResult } from '../delivery/harness';
import type { Receiver } from '../delivery/receiver';
import { createDestination, createEndpoint, createWorkspace, insertEvent, linkEndpoint } from '../support/factories';
import { type FakePlatforms, startFakePlatforms } from '../support/fake-platforms';
import type { TestContainer } from '../support/test-env';

/**
 * The formatting library on the real delivery path: routing rules pick the
 * template and transform, the transform runs, each destination type gets its
 * own shape (chat messages to the strict fake platforms, the transformed
 * payload to a webhook), and a failing transform fails the delivery at once.
 */
describe('formatting in the delivery path (real PostgreSQL, Temporal, fake platforms)', () => {
  let t: TestContainer;
  let fakes: FakePlatforms;
  let receiver: Receiver;
  let stack: DeliveryStack;
  let endpointId: string;

  beforeAll(async () => {
    fakes = await startFakePlatforms();
    stack = await startDeliveryStack({ env: fakes.env });
    ({ t, receiver } = stack);

    const em = t.container.orm.em.fork();
    const { project } = await createWorkspace(em);
    const { endpoint } = await createEndpoint(t.container, em, project);
    endpointId = endpoint.id;
    const standard = em.create(MessageTemplate, {
      project,
      name: 'standard',
      config: {
        version: 2,
        platforms: {
          default: { title: '{{ .Meta.EventType }}: {{ .Payload.repo }} ({{ .Payload.count }})', footer: '{{ .Meta.EndpointSlug }}' },
          chat_c: { telegram_html: '<b>{{ .Payload.repo }}</b> {{ .Payload.title }}' },
        },
      },
    });
    const issues = em.create(MessageTemplate, { project, name: 'issues', config: { title: 'Issue: {{ .Payload.title }}' } });
    const flatten = em.create(Transform, {
      project,
      name: 'flatten',
      expression: '{ "repo": repository.full_name, "title": title, "count": $count(commits) }',
    });
    const broken = em.create(Transform, { project, name: 'broken', expression: 'does.not.exist' });
    await em.flush();

    const routing = {
      template: standard,
      transform: flatten,
      routingRules: [{ name: 'issues', logic: 'AND' as const, conditions: [{ field: 'header.X-CodehostA-Event', operator: 'eq' as const, value: 'issues' }], template_id: issues.id }],
    };
    const chatB = await createDestination(t.container, em, project, { type: 'chat_b', webhookUrl: fakes.chatB.webhookUrl, retryPolicy: FAST_RETRIES });
    const chatC = await createDestination(t.container, em, project, { type: 'chat_c', botToken: fakes.chatC.botToken, channelId: fakes.chatC.chat, retryPolicy: FAST_RETRIES });
    const webhook = await createDestination(t.container, em, project, { type: 'webhook', webhookUrl: receiver.url, retryPolicy: FAST_RETRIES });
    const failing = await createDestination(t.container, em, project, { type: 'chat_b', webhookUrl: fakes.chatB.webhookUrl, retryPolicy: FAST_RETRIES, eventTypes: ['push'] });
    for (const d of [chatB, chatC, webhook]) await linkEndpoint(em, endpoint, d, routing);
    await linkEndpoint(em, endpoint, failing, { template: standard, transform: broken });
  });

  afterAll(async () => {
    await stack?.close();
    await fakes?.close();
  });

  beforeEach(() => {
    fakes.reset();
    receiver.requests.length = 0;
  });

  async function deliver(eventType: string, headers: Record<string, string>, count: number) {
    const endpoint = { id: endpointId } as never;
    const payload = { repository: { full_name: 'acme/relay' }, title: 'Crash on <script>', commits: [{ id: 'a' }, { id: 'b' }] };
    const eventId = await insertEvent(t.container, endpoint, { eventType, headers: { 'content-type': 'application/json', ...headers }, payload });
    const deliveries = await waitForDeliveries(t.container, eventId, count);
    const results = await Promise.all(deliveries.map((d) => workflowResult(t.container, d.id)));
    return { eventId, deliveries, results };
  }

  it('renders per destination type with the link template and transform; the webhook gets the transformed payload', async () => {
    const { results } = await deliver('ping', { 'x-codehosta-event': 'ping' }, 3);
    expect(results).toEqual(['success', 'success', 'success']);

    const [chatB] = fakes.chatB.delivered;
    expect(chatB.body).toMatchObject({ embeds: [{ title: 'ping: acme/relay (2)' }] });
    const [chatC] = fakes.chatC.delivered;
    expect(chatC.body).toMatchObject({ chat_id: fakes.chatC.chat, parse_mode: 'HTML', text: '<b>acme/relay</b> Crash on &lt;script&gt;' });
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0].body)).toEqual({ repo: 'acme/relay', title: 'Crash on <script>', count: 2 });
  });

  it('a matching routing rule picks its template and keeps the link transform', async () => {
    await deliver('issues.opened', { 'x-codehosta-event': 'issues' }, 3);
    expect(fakes.chatB.delivered[0].body).toMatchObject({ embeds: [{ title: 'Issue: Crash on <script>' }] });
    expect(fakes.chatC.delivered[0].body).toMatchObject({ text: '<b>Issue: Crash on &lt;script&gt;</b>' });
  });

  it('a transform that returns nothing fails its delivery at once, recorded and dead-lettered', async () => {
    const { deliveries } = await deliver('push', { 'x-codehosta-event': 'push' }, 4);
    const [failed] = await sql<{ id: string; status: string; attempt_count: number; dead_lettered_at: string | null }>(
      t.container,
      `select d.* from deliveries d join endpoint_destinations l on l.destination_id = d.destination_id
        join transforms x on x.id = l.transform_id where x.name = 'broken' and d.id = any(?)`,
      [deliveries.map((d) => d.id)],
    );
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(failed.dead_lettered_at).not.toBeNull();
    const attempts = await attemptsOf(t.container, failed.id);
    expect(attempts).toHaveLength(1);
    expect(attempts[0].error).toMatch(/transform returned no value/);
    expect(fakes.chatB.delivered).toHaveLength(1);
  });
});
