import { collectDefaultMetrics, Registry, type Metric } from 'prom-client';
import type { Deps } from '../../deps.js';
import { forbidden, unauthorized } from '../../errors.js';
import { safeEqual } from '../../crypto/ids.js';
import type { Http } from '../types.js';

const LOOPBACK = new Set(['127.0.0.1', '::1', '::ffff:127.0.0.1']);
/** Headers a reverse proxy adds: a request carrying one came through a proxy, whatever its socket says. */
const PROXY_HEADERS = ['forwarded', 'x-forwarded-for', 'x-real-ip'] as const;

/**
 * Prometheus metrics at GET /metrics: requests by route template (never the raw URL, which would carry
 * ids) and status, latency (counted by `stats`, which the root's onResponse hook in app.ts feeds), and
 * the process's default metrics. With ADMIN_TOKEN set it needs
 * `Authorization: Bearer <ADMIN_TOKEN>`; without, only loopback clients whose request carries no proxy
 * header may read it (docs/operations.md).
 */
export function registerMetrics(app: Http, deps: Deps, stats: RequestStats): void {
  if (!deps.config.adminToken && deps.config.trustProxy !== false) {
    deps.log.warn('TRUST_PROXY is set without ADMIN_TOKEN: /metrics answers loopback clients only, never a request through the proxy; set ADMIN_TOKEN to scrape it through the proxy');
  }
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  for (const metric of deps.metrics.all) registry.registerMetric(metric);
  for (const metric of stats.metrics()) registry.registerMetric(metric);

  app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
    const token = deps.config.adminToken;
    if (token) {
      const sent = /^Bearer\s+(\S+)$/i.exec(request.headers.authorization ?? '')?.[1];
      if (!sent || !safeEqual(sent, token)) throw unauthorized('metrics need Authorization: Bearer <ADMIN_TOKEN>');
    } else if (!LOOPBACK.has(request.raw.socket.remoteAddress ?? '') || PROXY_HEADERS.some((name) => request.headers[name] !== undefined)) {
      // The socket's own peer, not request.ip: with TRUST_PROXY, X-Forwarded-For could claim 127.0.0.1.
      // And a loopback peer is not enough: behind a proxy on the same host every client is loopback, so a
      // request that came through a proxy (it carries the proxy's header) is refused whatever its socket.
      throw forbidden('metrics are served to loopback clients not behind a proxy, unless ADMIN_TOKEN is set');
    }
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/** One route template's figures: latencies per bucket (not cumulative), and requests by method and status. */
interface RouteStats {
  buckets: Float64Array;
  sum: number;
  count: number;
  byMethod: Map<string, Map<number, number>>;
}

/**
 * gatehouse_http_requests_total{method,route,status} and gatehouse_http_request_duration_seconds{route},
 * counted in plain maps and numbers per request and turned into prom-client's records when scraped.
 * prom-client's own Counter and Histogram validate, sort and hash the label set on every observation:
 * about 6 % of the CPU of a /v1/health request (bench/README.md).
 */
export class RequestStats {
  private readonly routes = new Map<string, RouteStats>();

  record(route: string, method: string, status: number, seconds: number): void {
    let stats = this.routes.get(route);
    if (!stats) this.routes.set(route, (stats = { buckets: new Float64Array(LATENCY_BUCKETS.length), sum: 0, count: 0, byMethod: new Map() }));
    let i = 0;
    while (i < LATENCY_BUCKETS.length && seconds > LATENCY_BUCKETS[i]!) i++;
    if (i < LATENCY_BUCKETS.length) stats.buckets[i]! += 1;
    stats.sum += seconds;
    stats.count += 1;
    let byStatus = stats.byMethod.get(method);
    if (!byStatus) stats.byMethod.set(method, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }

  /** The two metrics as prom-client registers and prints them (`get` answers what a Counter's and a Histogram's would). */
  metrics(): Metric[] {
    const requestsName = 'gatehouse_http_requests_total';
    const latencyName = 'gatehouse_http_request_duration_seconds';
    type Value = { metricName?: string; labels: Record<string, string | number>; value: number };
    const requestValues = () => {
      const values: Value[] = [];
      for (const [route, stats] of this.routes) {
        for (const [method, byStatus] of stats.byMethod) {
          for (const [status, count] of byStatus) values.push({ labels: { method, route, status: String(status) }, value: count });
        }
      }
      return values;
    };
    const latencyValues = () => {
      const values: Value[] = [];
      for (const [route, stats] of this.routes) {
        let cumulative = 0;
        LATENCY_BUCKETS.forEach((le, i) => {
          cumulative += stats.buckets[i]!;
          values.push({ metricName: `${latencyName}_bucket`, labels: { le, route }, value: cumulative });
        });
        values.push({ metricName: `${latencyName}_bucket`, labels: { le: '+Inf', route }, value: stats.count });
        values.push({ metricName: `${latencyName}_sum`, labels: { route }, value: stats.sum });
        values.push({ metricName: `${latencyName}_count`, labels: { route }, value: stats.count });
      }
      return values;
    };
    const metric = (name: string, help: string, type: string, values: () => Value[]) => ({
      name,
      help,
      get: async () => ({ name, help, type, aggregator: 'sum', values: values() }),
    });
    return [
      metric(requestsName, 'HTTP requests by method, route and status', 'counter', requestValues),
      metric(latencyName, 'HTTP request latency by route', 'histogram', latencyValues),
    ] as unknown as Metric[];
  }
}
