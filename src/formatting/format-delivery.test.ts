import { TransformError } from '../transforms/transform-runner';
import { buildTemplateMeta, formatDelivery } from './format-delivery';
import { TemplateRenderError } from './index';

const meta = buildTemplateMeta({
  eventType: 'order.paid',
  eventId: 'e1',
  endpointId: 'p1',
  endpointSlug: 'shop',
  destinationId: 'd1',
  receivedAt: new Date('2024-03-05T07:08:09Z'),
  headers: null,
});
const payload = { items: [{ price: 2 }, { price: 3 }], customer: 'c<1>' };
const templateConfig = { title: '{{ .Meta.EventType }} {{ .Payload.total }}' };
const transformExpression = '{ "total": $sum(items.price) }';

describe('formatDelivery', () => {
  test('webhook and cli get the transformed payload; templates never apply', async () => {
    for (const destinationType of ['webhook', 'cli'] as const) {
      await expect(formatDelivery({ destinationType, templateConfig, transformExpression, payload, meta })).resolves.toEqual({
        payload: { total: 5 },
        body: { total: 5 },
      });
    }
  });

  test('chat types render the template against the transformed payload', async () => {
    const out = await formatDelivery({ destinationType: 'chat_b', templateConfig, transformExpression, payload, meta });
    expect(out.body).toEqual({ embeds: [{ title: 'order.paid 5' }] });
  });

  test('without a transform the payload passes through', async () => {
    const out = await formatDelivery({ destinationType: 'webhook', templateConfig: null, transformExpression: null, payload, meta });
    expect(out.body).toBe(payload);
  });

  test('transform and template errors are thrown for the caller to record', async () => {
    await expect(formatDelivery({ destinationType: 'chat_b', templateConfig, transformExpression: 'nope', payload, meta })).rejects.toBeInstanceOf(TransformError);
    await expect(
      formatDelivery({ destinationType: 'chat_c', templateConfig: { telegram_html: '{{ if }}' }, transformExpression: null, payload, meta }),
    ).rejects.toBeInstanceOf(TemplateRenderError);
  });

  test('buildTemplateMeta', () => {
    expect(meta).toEqual({
      EventType: 'order.paid',
      EventID: 'e1',
      EndpointID: 'p1',
      EndpointSlug: 'shop',
      DestinationID: 'd1',
      ReceivedAt: '2024-03-05T07:08:09.000Z',
      Headers: {},
    });
  });
});
