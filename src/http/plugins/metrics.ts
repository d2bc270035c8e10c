import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';
import type { Deps } from '../../deps.js';
import { forbidden, unauthorized } from '../../errors.js';
import { safeEqual } from '../../crypto/ids.js';
import type { Http } from '../types.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);

/**
 * Prometheus metrics at GET /metrics: requests by route template (never the raw URL, which would carry
 * ids) and status, latency, and the process's default metrics. With ADMIN_TOKEN set it needs
 * `Authorization: Bearer <ADMIN_TOKEN>`; without, only loopback clients may read it.
 */
export function registerMetrics(app: Http, deps: Deps): void {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const metric of deps.metrics.all) registry.registerMetric(metric);
  const requests = new Counter({
    name: 'gatehouse_http_requests_total',
    help: 'HTTP requests by method, route and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'gatehouse_http_request_duration_seconds',
    help: 'HTTP request latency by route',
    labelNames: ['route'] as const,
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });

  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url ?? 'unmatched';
    requests.inc({ method: request.method, route, status: String(reply.statusCode) });
    latency.observe({ route }, reply.elapsedTime / 1000);
    done();
  });

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const token = deps.config.adminToken;
    if (token) {
      const sent = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (!sent || !safeEqual(sent, token)) throw unauthorized('metrics need Authorization: Bearer <ADMIN_TOKEN>');
    } else if (!LOOPBACK.has(request.raw.socket.remoteAddress ?? '')) {
      // The socket's own peer, not request.ip: with TRUST_PROXY, X-Forwarded-For could claim 127.0.0.1.
      throw forbidden('metrics are served to loopback clients only unless ADMIN_TOKEN is set');
    }
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}
