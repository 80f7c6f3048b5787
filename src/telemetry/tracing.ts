import { type Context, context, ROOT_CONTEXT, type Span, SpanStatusCode, trace, TraceFlags } from '@opentelemetry/api';
import { AsyncLocalStorageContextManager } from '@opentelemetry/context-async-hooks';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BasicTracerProvider, BatchSpanProcessor } from '@opentelemetry/sdk-trace-base';
import type { ClientInterceptors } from '@temporalio/client';
import { OpenTelemetryPlugin, OpenTelemetryWorkflowClientInterceptor } from '@temporalio/interceptors-opentelemetry';
import type { Config } from '../config/config';

/**
 * OpenTelemetry traces from ingress through the delivery workflow to the send,
 * exported over OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT is set. Off
 * otherwise: no provider, no interceptors, no spans (every helper below is a
 * plain call then).
 *
 * Ingress and the workflow start are separated by the outbox (another process,
 * later), so the trace id is the event id itself (a UUID is 128 bits, like a
 * trace id): ingress, the dispatcher's start, the workflow, the attempt and the
 * send of every delivery of one event share one trace, with nothing stored.
 */
let tracing: { provider: BasicTracerProvider; plugin: OpenTelemetryPlugin } | null = null;

const TRACER = 'webhook-relay';

/** Starts tracing for this process when the endpoint is set and tracing is not on yet; true when this call started it. */
export function startTracing(config: Pick<Config, 'OTEL_EXPORTER_OTLP_ENDPOINT'>, serviceName = 'webhook-relay'): boolean {
  if (tracing || !config.OTEL_EXPORTER_OTLP_ENDPOINT) return false;
  const resource = new Resource({ 'service.name': serviceName });
  const spanProcessor = new BatchSpanProcessor(new OTLPTraceExporter({ url: `${config.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces` }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [spanProcessor] });
  provider.register({ contextManager: new AsyncLocalStorageContextManager() });
  tracing = { provider, plugin: new OpenTelemetryPlugin({ resource, spanProcessor }) };
  return true;
}

/** Exports what is buffered and stops; tracing can be started again. */
export async function stopTracing(): Promise<void> {
  if (!tracing) return;
  const { provider } = tracing;
  tracing = null;
  await provider.shutdown();
  trace.disable();
  context.disable();
}

/** The worker plugin (workflow and activity interceptors, workflow span export), when tracing is on. */
export function tracingWorkerPlugins(): OpenTelemetryPlugin[] {
  return tracing ? [tracing.plugin] : [];
}

/** Client interceptors that start workflows inside a span and pass its context in the workflow's headers. */
export function tracingClientInterceptors(): ClientInterceptors | undefined {
  return tracing ? { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } : undefined;
}

/** The trace of one event: its id as the trace id, under a parent that is never exported. */
export function eventTraceContext(eventId: string): Context {
  const hex = eventId.replace(/-/g, '');
  return trace.setSpanContext(ROOT_CONTEXT, { traceId: hex, spanId: hex.slice(16), traceFlags: TraceFlags.SAMPLED, isRemote: true });
}

/** Runs `fn` within the event's trace (the dispatcher's workflow start); just `fn()` when tracing is off. */
export function inEventTrace<T>(eventId: string, fn: () => T): T {
  return tracing ? context.with(eventTraceContext(eventId), fn) : fn();
}

/** Records a finished span in the event's trace (ingress: the event id is known only once it is stored). */
export function recordEventSpan(eventId: string, name: string, startedAt: number, attributes: Record<string, string>): void {
  if (!tracing) return;
  trace.getTracer(TRACER).startSpan(name, { startTime: startedAt, attributes }, eventTraceContext(eventId)).end();
}

/** Runs `fn` in a child span of the active one (the attempt activity's); just `fn()` when tracing is off. */
export async function withSpan<T>(name: string, attributes: Record<string, string>, fn: () => Promise<T>): Promise<T> {
  if (!tracing) return fn();
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, async (span: Span) => {
    try {
      return await fn();
    } catch (err) {
      span.setStatus({ code: SpanStatusCode.ERROR, message: (err as Error).message });
      throw err;
    } finally {
      span.end();
    }
  });
}
