import { createServer, type IncomingMessage, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { createBucket, objectPath, random, rawRequest } from '../helpers/objects.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';

// OpenTelemetry traces against an OTLP/HTTP receiver on loopback (this file's own HTTP server, reading the
// JSON the exporter posts to /v1/traces): a request's W3C traceparent is continued, the route names the
// server span, the blob store's call and the S3 request it makes are its children, and that request
// carries the trace onward in its own traceparent header (a recording stand-in for S3); PostgreSQL queries
// and Redis commands on the PostgreSQL pass; SMTP sends. Without OTEL_* variables nothing is sent.

interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  kind: number;
  attributes: { key: string; value: { stringValue?: string; intValue?: string | number } }[];
}

function listen(server: Server): Promise<number> {
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
}
const body = (request: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c)).on('end', () => resolve(Buffer.concat(chunks)));
  });
const attr = (span: OtlpSpan, key: string) => span.attributes.find((a) => a.key === key)?.value.stringValue;
/** The database a client span talks to (semantic conventions 1.26+ name it db.system.name, older ones db.system). */
const dbSystem = (span: OtlpSpan) => attr(span, 'db.system.name') ?? attr(span, 'db.system');

let receiver: Server;
let receiverPort: number;
const spans: OtlpSpan[] = [];
const exportContentTypes = new Set<string>();
let s3: Server;
const s3Requests: { method: string; url: string; traceparent?: string }[] = [];
let sink: SmtpSink;
let traced: TestServer;
let untraced: TestServer;
let app: TestApp;

beforeAll(async () => {
  receiver = createServer(async (request, response) => {
    const data = await body(request);
    exportContentTypes.add(String(request.headers['content-type']));
    if (request.url === '/v1/traces') {
      const parsed = JSON.parse(data.toString('utf8')) as { resourceSpans: { scopeSpans: { spans: OtlpSpan[] }[] }[] };
      for (const resource of parsed.resourceSpans) for (const scope of resource.scopeSpans) spans.push(...scope.spans);
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  receiverPort = await listen(receiver);
  // Stands in for S3: stores nothing, answers what PutObject needs, records each request's traceparent.
  s3 = createServer(async (request, response) => {
    await body(request);
    s3Requests.push({ method: request.method!, url: request.url!, traceparent: request.headers.traceparent as string | undefined });
    response.writeHead(200, { etag: '"0"', 'content-length': '0' }).end();
  });
  const s3Port = await listen(s3);
  sink = await startSmtpSink();
  const otel = {
    OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `http://127.0.0.1:${receiverPort}/v1/traces`,
    OTEL_BSP_SCHEDULE_DELAY: '100',
    OTEL_SERVICE_NAME: 'gatehouse-tracing-test',
  };
  [traced, untraced] = await Promise.all([
    startServer({
      ...otel,
      SMTP_URL: sink.url,
      RATE_LIMITS: 'signin_ip=100/60',
      BLOB_STORE: `s3://traces?endpoint=${encodeURIComponent(`http://127.0.0.1:${s3Port}`)}&region=us-east-1&force_path_style=true`,
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test-secret',
    }),
    startServer({ RATE_LIMITS: 'signin_ip=100/60' }),
  ]);
  app = await createApp(traced);
});
afterAll(async () => {
  await Promise.all([traced?.stop(), untraced?.stop(), sink?.close()]);
  receiver?.close();
  s3?.close();
});

const inTrace = (traceId: string) => spans.filter((s) => s.traceId === traceId);

describe('OpenTelemetry traces (OTLP/HTTP)', () => {
  it("continues the caller's traceparent: the route names the server span; the blob store call and its S3 request are children; the S3 request carries the trace on", async () => {
    const traceId = randomBytes(16).toString('hex');
    const parentId = randomBytes(8).toString('hex');
    const bucket = await createBucket(traced, app);
    const res = await rawRequest(traced, 'PUT', objectPath(bucket.bucket_id, 'a.bin'), {
      body: random(32),
      bearer: app.secret_key,
      headers: { 'content-type': 'application/octet-stream', traceparent: `00-${traceId}-${parentId}-01` },
    });
    expect(res.status).toBe(200);
    await expect.poll(() => inTrace(traceId).some((s) => s.name === 'blob put'), { timeout: 15_000, interval: 100 }).toBe(true);
    await expect.poll(() => inTrace(traceId).some((s) => s.kind === 2 && s.parentSpanId === parentId), { timeout: 15_000, interval: 100 }).toBe(true);
    const server = inTrace(traceId).find((s) => s.kind === 2 && s.parentSpanId === parentId)!;
    expect(server.name).toBe('PUT /v1/buckets/:bucket_id/objects/*');
    const blob = inTrace(traceId).find((s) => s.name === 'blob put')!;
    const s3Client = inTrace(traceId).find((s) => s.kind === 3 && s.parentSpanId === blob.spanId);
    expect(s3Client, JSON.stringify(inTrace(traceId).map((s) => s.name))).toBeDefined();
    const put = s3Requests.find((r) => r.method === 'PUT' && r.traceparent?.includes(traceId));
    expect(put?.traceparent).toMatch(new RegExp(`^00-${traceId}-[0-9a-f]{16}-01$`));
    // The service's trace, not a copy of the caller's span id: the S3 request's parent is the client span.
    expect(put!.traceparent!.split('-')[2]).toBe(s3Client!.spanId);
    if (TEST_DB === 'postgres') expect(inTrace(traceId).some((s) => dbSystem(s) === 'postgresql')).toBe(true);
    expect([...exportContentTypes]).toEqual(['application/json']);
  });

  it(`a sign-in's rate-limit step${TEST_DB === 'postgres' ? ' is a Redis command and its lookup a PostgreSQL query' : ''} in its trace; the email it sends is an SMTP span; no address or token in any span`, async () => {
    const email = `traced.${randomBytes(4).toString('hex')}@example.com`;
    expect((await api(traced, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } })).status).toBe(201);
    const traceId = randomBytes(16).toString('hex');
    const res = await api(traced, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email }, headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } });
    expect(res.status).toBe(200);
    await sink.waitFor(email);
    await expect.poll(() => spans.some((s) => s.name === 'smtp send'), { timeout: 15_000, interval: 100 }).toBe(true);
    await expect.poll(() => inTrace(traceId).some((s) => s.name === 'POST /v1/signins'), { timeout: 15_000, interval: 100 }).toBe(true);
    if (TEST_DB === 'postgres') {
      await expect.poll(() => inTrace(traceId).some((s) => dbSystem(s) === 'redis'), { timeout: 15_000, interval: 100 }).toBe(true);
      expect(inTrace(traceId).some((s) => dbSystem(s) === 'postgresql')).toBe(true);
    }
    const everything = JSON.stringify(spans);
    expect(everything).not.toContain(email);
    expect(everything).not.toContain(app.secret_key);
    expect(everything).not.toContain(app.publishable_key);
  });

  it('off without OTEL_* variables: that server sends nothing and says nothing of tracing', async () => {
    const traceId = randomBytes(16).toString('hex');
    await api(untraced, 'GET', '/.well-known/jwks.json?app_id=app_none', { headers: { traceparent: `00-${traceId}-${randomBytes(8).toString('hex')}-01` } });
    // The traced server's exports keep arriving meanwhile: the receiver is live, and it never sees this trace.
    const seen = spans.length;
    await api(traced, 'GET', '/.well-known/jwks.json?app_id=app_none');
    await expect.poll(() => spans.length, { timeout: 15_000, interval: 100 }).toBeGreaterThan(seen);
    expect(inTrace(traceId)).toEqual([]);
    expect(await untraced.logs()).not.toMatch(/OpenTelemetry/);
    expect(await traced.logs()).toMatch(/OpenTelemetry traces on/);
  });
});
