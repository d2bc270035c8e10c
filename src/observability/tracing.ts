import type { Span, Tracer } from '@opentelemetry/api';
import type { BlobStore } from '../blobs/store.js';
import type { Mailer } from '../mail/mailer.js';
import { RELEASE } from '../release.js';
import type { Logger } from './logger.js';
import { scrubUrl } from './scrub-url.js';

// OpenTelemetry traces (docs/operations.md, "Traces"): off unless an OTLP endpoint is configured by the
// standard variables. Off, nothing of OpenTelemetry is loaded and no request, query or call does anything
// more than before: the SDK is imported here on start-up only when wanted, and the spans of SMTP, the blob
// store and the routes come from wrappers and a hook installed only then. On: HTTP in and out
// (W3C traceparent read from requests and written into outgoing HTTP calls: S3), PostgreSQL queries and
// Redis commands through the OpenTelemetry instrumentations, SMTP sends and blob store calls here.

type Env = Record<string, string | undefined>;

let tracer: Tracer | undefined;
let otel: typeof import('@opentelemetry/api') | undefined;
let shutdown: (() => Promise<void>) | undefined;

/** Whether the standard variables ask for traces: an OTLP endpoint, and neither OTEL_SDK_DISABLED nor OTEL_TRACES_EXPORTER=none. */
export function tracingWanted(env: Env): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return false;
  const exporter = env.OTEL_TRACES_EXPORTER?.trim().toLowerCase();
  if (exporter && exporter !== 'otlp') return false;
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim());
}

/**
 * Starts the SDK when tracingWanted: before the HTTP server, pg and ioredis are loaded (the instrumentations
 * patch them as they load). The exporter, sampler, batch and resource read their own OTEL_* variables
 * (OTEL_EXPORTER_OTLP_*, OTEL_TRACES_SAMPLER, OTEL_BSP_*, OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES).
 */
export async function startTracing(env: Env, log: Logger): Promise<boolean> {
  if (tracer || !tracingWanted(env)) return Boolean(tracer);
  const api = await import('@opentelemetry/api');
  const { AsyncLocalStorageContextManager } = await import('@opentelemetry/context-async-hooks');
  const { W3CTraceContextPropagator } = await import('@opentelemetry/core');
  const { BasicTracerProvider, BatchSpanProcessor } = await import('@opentelemetry/sdk-trace-base');
  const { defaultResource, detectResources, envDetector, resourceFromAttributes } = await import('@opentelemetry/resources');
  const { OTLPTraceExporter } = await import('@opentelemetry/exporter-trace-otlp-http');
  const { registerInstrumentations } = await import('@opentelemetry/instrumentation');
  const { HttpInstrumentation } = await import('@opentelemetry/instrumentation-http');
  const { PgInstrumentation } = await import('@opentelemetry/instrumentation-pg');
  const { IORedisInstrumentation } = await import('@opentelemetry/instrumentation-ioredis');

  const resource = defaultResource()
    .merge(resourceFromAttributes({ 'service.name': 'gatehouse', 'service.version': RELEASE.name }))
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  api.context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  api.propagation.setGlobalPropagator(new W3CTraceContextPropagator());
  api.trace.setGlobalTracerProvider(provider);
  registerInstrumentations({
    tracerProvider: provider,
    instrumentations: [
      new HttpInstrumentation({
        // One-time tokens ride in some query strings: the URL is recorded as the access log writes it.
        requestHook: (span, request) => {
          if ('url' in request && typeof request.url === 'string' && !('path' in request)) {
            const scrubbed = scrubUrl(request.url);
            span.setAttribute('http.target', scrubbed);
            span.setAttribute('url.path', scrubbed.split('?')[0]!);
            span.setAttribute('url.query', scrubbed.includes('?') ? scrubbed.slice(scrubbed.indexOf('?') + 1) : '');
            span.setAttribute('http.url', scrubbed);
          }
        },
        // The scrape and the probes are not traced: they would be most spans and say nothing.
        ignoreIncomingRequestHook: (request) => request.url === '/metrics' || request.url === '/v1/health' || request.url === '/v1/health/live',
        headersToSpanAttributes: { server: { requestHeaders: [], responseHeaders: [] } },
      }),
      new PgInstrumentation({ enhancedDatabaseReporting: false }),
      new IORedisInstrumentation({ dbStatementSerializer: (command) => command }),
    ],
  });
  otel = api;
  tracer = api.trace.getTracer('gatehouse', RELEASE.name);
  shutdown = () => provider.shutdown();
  log.info({ code: 'tracing', endpoint: env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT ?? env.OTEL_EXPORTER_OTLP_ENDPOINT }, 'OpenTelemetry traces on');
  return true;
}

/** Sends the spans still queued (shutdown). */
export async function stopTracing(): Promise<void> {
  await shutdown?.().catch(() => {});
}

/** Runs `work` in a span named `name` (ended with its outcome), or as it is when tracing is off. */
async function inSpan<T>(name: string, attributes: Record<string, string | number>, work: () => Promise<T>): Promise<T> {
  if (!tracer || !otel) return work();
  const api = otel;
  return tracer.startActiveSpan(name, { kind: api.SpanKind.CLIENT, attributes }, async (span: Span) => {
    try {
      return await work();
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: api.SpanStatusCode.ERROR, message: (error as Error)?.message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/** The blob store with a span around each call, when tracing is on (the blob's name: ids only, never a key). */
export function tracedBlobStore(store: BlobStore): BlobStore {
  if (!tracer) return store;
  const attrs = (operation: string) => ({ 'gatehouse.blob_store': store.kind, 'gatehouse.blob_operation': operation });
  return {
    kind: store.kind,
    put: (name, body, size) => inSpan('blob put', { ...attrs('put'), 'gatehouse.blob_bytes': size }, () => store.put(name, body, size)),
    get: (name, range) => inSpan('blob get', attrs('get'), () => store.get(name, range)),
    delete: (name) => inSpan('blob delete', attrs('delete'), () => store.delete(name)),
    sweepTemporary: (before) => inSpan('blob sweep', attrs('sweep'), () => store.sweepTemporary(before)),
    exists: (name) => inSpan('blob exists', attrs('exists'), () => store.exists(name)),
    list: () => store.list(),
    close: () => store.close(),
  };
}

/** The mailer with a span around each send, when tracing is on (no address: the span names only the template). */
export function tracedMailer(mailer: Mailer): Mailer {
  if (!tracer) return mailer;
  return {
    get concurrency() {
      return mailer.concurrency;
    },
    send: (mail, signal) => inSpan('smtp send', { 'messaging.system': 'smtp' }, () => mailer.send(mail, signal)),
    close: (options) => mailer.close(options),
  };
}

/** Names the request's span by its route template once routed (a Fastify onRequest hook), when tracing is on. */
export function routeNamingHook(): ((request: { method: string; routeOptions: { url?: string } }, reply: unknown, done: () => void) => void) | undefined {
  if (!tracer || !otel) return undefined;
  const api = otel;
  return (request, _reply, done) => {
    const span = api.trace.getActiveSpan();
    const route = request.routeOptions.url;
    if (span && route) {
      span.updateName(`${request.method} ${route}`);
      span.setAttribute('http.route', route);
    }
    done();
  };
}
