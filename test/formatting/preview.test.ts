import type { EntityManager } from '@mikro-orm/postgresql';
import { NotFoundError, ValidationError } from '../../src/common/errors';
import { MessageTemplate } from '../../src/templates/message-template.entity';
import { previewFormatting } from '../../src/templates/template-preview.service';
import { Transform } from '../../src/transforms/transform.entity';
import { createEndpoint, createWorkspace, insertEvent, type Workspace } from '../support/factories';
import { createTestContainer, type TestContainer } from '../support/test-env';

let tc: TestContainer;
let em: EntityManager;
let ws: Workspace;
let other: Workspace;
let template: MessageTemplate;
let transform: Transform;
let eventId: string;
let endpointSlug: string;

beforeAll(async () => {
  tc = await createTestContainer();
  em = tc.container.orm.em.fork();
  ws = await createWorkspace(em);
  other = await createWorkspace(em);
  template = em.create(MessageTemplate, {
    project: ws.project,
    name: 'Issues',
    config: {
      version: 2,
      platforms: {
        default: { title: '#{{ .Payload.number }} {{ .Payload.title }}', footer: '{{ .Meta.EventType }} via {{ .Meta.EndpointSlug }}' },
        chat_c: { telegram_html: '<b>#{{ .Payload.number }}</b> {{ .Payload.title }}' },
      },
    },
  });
  transform = em.create(Transform, { project: ws.project, name: 'Flatten', expression: '{ "number": issue.number, "title": issue.title }' });
  await em.flush();
  const { endpoint } = await createEndpoint(tc.container, em, ws.project);
  endpointSlug = endpoint.slug;
  eventId = await insertEvent(tc.container, endpoint, {
    eventType: 'issues.opened',
    payload: { action: 'opened', issue: { number: 7, title: 'Crash on <script>' } },
  });
});
afterAll(async () => {
  await tc?.close();
});

const ctx = () => ({ em: tc.container.orm.em.fork(), projectId: ws.project.id });

describe('previewFormatting', () => {
  test('a stored event through a stored transform and template: what each destination type receives', async () => {
    const result = await previewFormatting(ctx(), { template_id: template.id, transform_id: transform.id, event_id: eventId });
    expect(result.errors).toEqual([]);
    expect(result.transformed_payload).toEqual({ number: 7, title: 'Crash on <script>' });
    expect(result.outputs).toEqual({
      webhook: { number: 7, title: 'Crash on <script>' },
      chat_b: { embeds: [{ title: '#7 Crash on <script>', footer: { text: `issues.opened via ${endpointSlug}` } }] },
      chat_a: {
        text: '',
        attachments: [
          {
            fallback: '#7 Crash on &lt;script&gt;',
            title: '#7 Crash on &lt;script&gt;',
            footer: `issues.opened via ${endpointSlug}`,
            mrkdwn_in: ['text', 'fields'],
          },
        ],
      },
      chat_c: { text: '<b>#7</b> Crash on &lt;script&gt;', parse_mode: 'HTML' },
    });
  });

  test('a sample payload with an inline template and expression, for chosen destination types', async () => {
    const result = await previewFormatting(ctx(), {
      template_config: { title: '{{ .Meta.EventType }}: {{ .Payload.total }}' },
      transform_expression: '{ "total": $sum(items.price) }',
      payload: { items: [{ price: 2 }, { price: 3 }] },
      event_type: 'order.paid',
      destination_types: ['chat_b', 'cli'],
    });
    expect(result).toEqual({
      transformed_payload: { total: 5 },
      outputs: { chat_b: { embeds: [{ title: 'order.paid: 5' }] }, cli: { total: 5 } },
      errors: [],
    });
  });

  test('template errors point at the faulty expression', async () => {
    const result = await previewFormatting(ctx(), {
      template_config: { version: 2, platforms: { chat_b: { fields: [{ name: 'a', value: 'b' }, { name: 'c', value: 'ok' }, { name: 'x', value: 'line 1\n{{ .Payload.x | shout }}' }] } } },
      payload: { x: 1 },
      destination_types: ['webhook', 'chat_b'],
    });
    expect(result.outputs).toEqual({ webhook: { x: 1 }, chat_b: null });
    expect(result.errors).toEqual([
      { stage: 'template', path: 'platforms.chat_b.fields[2].value', line: 2, message: expect.stringMatching(/unknown function "shout"/) },
    ]);
  });

  test('transform errors stop the preview with the position', async () => {
    const syntax = await previewFormatting(ctx(), { transform_expression: '{ "a": ', payload: {} });
    expect(syntax.errors).toEqual([{ stage: 'transform', message: expect.stringMatching(/Syntax error/), position: 7 }]);
    expect(syntax.outputs).toEqual({ webhook: null, chat_a: null, chat_b: null, chat_c: null });
    const empty = await previewFormatting(ctx(), { transform_expression: 'missing', payload: { a: 1 } });
    expect(empty.errors).toEqual([{ stage: 'transform', message: expect.stringMatching(/no value/) }]);
  });

  test('no template: the default message', async () => {
    const result = await previewFormatting(ctx(), { event_id: eventId, destination_types: ['chat_b'] });
    expect(result.outputs.chat_b).toMatchObject({ embeds: [{ title: 'issues.opened', fields: [{ name: 'action', value: 'opened' }, { name: 'issue', value: 'Crash on <script>' }] }] });
  });

  test('ids are scoped to the project', async () => {
    const foreign = { em: tc.container.orm.em.fork(), projectId: other.project.id };
    await expect(previewFormatting(foreign, { template_id: template.id, payload: {} })).rejects.toBeInstanceOf(NotFoundError);
    await expect(previewFormatting(foreign, { transform_id: transform.id, payload: {} })).rejects.toBeInstanceOf(NotFoundError);
    await expect(previewFormatting(foreign, { event_id: eventId })).rejects.toBeInstanceOf(NotFoundError);
    await expect(previewFormatting(ctx(), { event_id: 'not-a-uuid' })).rejects.toBeInstanceOf(NotFoundError);
  });

  test.each([
    ['neither payload nor event', {}],
    ['template id and config', { template_id: '0190f5a2-0000-7000-8000-000000000001', template_config: {}, payload: {} }],
    ['unknown destination type', { payload: {}, destination_types: ['fax'] }],
  ])('bad input: %s', async (_name, input) => {
    await expect(previewFormatting(ctx(), input as never)).rejects.toBeInstanceOf(ValidationError);
  });
});
