import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { RequestStats } from './metrics.js';

// RequestStats must print exactly what prom-client's own Counter and Histogram print for the same requests.
describe('RequestStats', () => {
  it("prints what prom-client's Counter and Histogram print for the same observations", async () => {
    const reference = new Registry();
    const requests = new Counter({ name: 'gatehouse_http_requests_total', help: 'HTTP requests by method, route and status', labelNames: ['method', 'route', 'status'], registers: [reference] });
    const latency = new Histogram({
      name: 'gatehouse_http_request_duration_seconds',
      help: 'HTTP request latency by route',
      labelNames: ['route'],
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [reference],
    });
    const fast = new Registry();
    const stats = new RequestStats();
    for (const metric of stats.metrics()) fast.registerMetric(metric);

    const seen: Array<[string, string, number, number]> = [
      ['/v1/health', 'GET', 200, 0.0004],
      ['/v1/health', 'GET', 200, 0.001],
      ['/v1/health', 'GET', 503, 0.0031],
      ['/v1/tables/:table_id', 'GET', 404, 0.02],
      ['/v1/tables/:table_id', 'DELETE', 200, 3.5],
      ['unmatched', 'PROPFIND', 404, 0.26],
      ['/v1/me', 'GET', 401, 0.0999],
    ];
    for (const [route, method, status, seconds] of seen) {
      requests.inc({ method, route, status: String(status) });
      latency.observe({ route }, seconds);
      stats.record(route, method, status, seconds);
    }
    const lines = async (registry: Registry) => (await registry.metrics()).split('\n').filter(Boolean).sort();
    const expected = await lines(reference);
    expect(expected.some((l) => l.startsWith('gatehouse_http_request_duration_seconds_bucket{le="+Inf",route="/v1/health"} 3'))).toBe(true);
    expect(await lines(fast)).toEqual(expected);
  });
});
