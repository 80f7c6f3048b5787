import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { type ApiServer, startApiServer } from '../../src/http/server';
import { postSigned } from '../support/ingress-helpers';
import { createScene, type DeliveryStack, startDeliveryStack, waitForDeliveries, waitForStatus } from './harness';

interface ExportedSpan {
  traceId: string;
  name: string;
}

/** A local OTLP/HTTP trace receiver: keeps the spans of every JSON export request. */
async function startCollector(): Promise<{ url: string; spans: ExportedSpan[]; paths: string[]; close(): Promise<void> }> {
  const spans: ExportedSpan[] = [];
  const paths: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      paths.push(req.url ?? '');
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
        resourceSpans: Array<{ scopeSpans: Array<{ spans: ExportedSpan[] }> }>;
      };
      for (const rs of body.resourceSpans) for (const ss of rs.scopeSpans) spans.push(...ss.spans);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    paths,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('tracing with OTEL_EXPORTER_OTLP_ENDPOINT set', () => {
  let collector: Awaited<ReturnType<typeof startCollector>>;
  let stack: DeliveryStack;
  let api: ApiServer;

  beforeAll(async () => {
    collector = await startCollector();
    // The container starts tracing (its Temporal client and the worker get the interceptors) and stops it on close.
    stack = await startDeliveryStack({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: collector.url } });
    api = await startApiServer(stack.t.container, 0, '127.0.0.1');
  });

  afterAll(async () => {
    await api?.close();
    await stack?.close();
    await collector?.close();
  });

  it('exports one trace per event: ingress, workflow start, workflow run, attempt and send', async () => {
    const { t, receiver } = stack;
    const scene = await createScene(t.container);
    await scene.destination(receiver.url);
    const res = await postSigned(api.url, scene.endpoint.slug, scene.signingSecret, { traced: true });
    expect(res.status).toBe(202);
    const eventId = res.body.event_id!;
    const [delivery] = await waitForDeliveries(t.container, eventId, 1);
    await waitForStatus(t.container, delivery.id, ['success']);

    // The trace id is the event id; spans arrive in batches (the batch processor exports every few seconds).
    const traceId = eventId.replace(/-/g, '');
    const expected = ['relay.ingress', 'StartWorkflow:deliveryWorkflow', 'RunWorkflow:deliveryWorkflow', 'RunActivity:attemptDelivery', 'relay.send'];
    const names = () => new Set(collector.spans.filter((s) => s.traceId === traceId).map((s) => s.name));
    for (let i = 0; i < 300 && !expected.every((n) => names().has(n)); i++) await new Promise((r) => setTimeout(r, 100));
    expect([...names()].sort()).toEqual(expect.arrayContaining(expected));
    expect(new Set(collector.paths)).toEqual(new Set(['/v1/traces']));
  });
});
