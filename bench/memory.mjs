#!/usr/bin/env node
// Server memory under load: RSS and V8's heap (from /metrics) after each of --runs loads of --duration
// seconds at 32 connections, and a few seconds after the last. Shows whether a peak is live data or garbage
// V8 has not collected yet (bench/README.md, "Memory under load"). A benchmark, not a test.
//
//   npm run build && node bench/memory.mjs [--db sqlite|postgres] [--path health|jwks] [--runs 4] [--duration 6] [--node-flags "--max-old-space-size=48"]
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startServer } from './lib/server.mjs';

const { values: opts } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    path: { type: 'string', default: 'health' },
    runs: { type: 'string', default: '4' },
    duration: { type: 'string', default: '6' },
    'node-flags': { type: 'string', default: '' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const server = await startServer({ db: opts.db, pgAdminUrl: opts['pg-url'], logLevel: 'info', nodeFlags: opts['node-flags'].split(' ').filter(Boolean) });
try {
  const { tenant_id } = await server.cli(['tenant', 'create', '--name', 'M']);
  const { app_id } = await server.cli(['app', 'create', '--tenant', tenant_id, '--name', 'M']);
  const path = opts.path === 'jwks' ? `/.well-known/jwks.json?app_id=${app_id}` : '/v1/health';
  const mb = (bytes) => (bytes / 1024 ** 2).toFixed(1);
  const gauge = (text, name) => Number(text.split('\n').find((line) => line.startsWith(`${name} `))?.split(' ')[1] ?? NaN);
  const show = async (label, rate = '') => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const { rss, peak } = server.rss() ?? {};
    console.log(
      `| ${label} | ${rate} | ${rss?.toFixed(1)} | ${peak?.toFixed(1)} | ${mb(gauge(text, 'nodejs_heap_size_total_bytes'))} | ${mb(gauge(text, 'nodejs_heap_size_used_bytes'))} |`,
    );
  };
  console.log(`# gatehouse memory bench: ${opts.db}, GET ${opts.path}, ${opts.runs} x ${opts.duration} s, node flags: ${opts['node-flags'] || 'none'}\n`);
  console.log('| after | req/s | RSS (MB) | peak RSS (MB) | V8 heap total (MB) | V8 heap used (MB) |\n| --- | --- | --- | --- | --- | --- |');
  await show('start');
  for (let i = 1; i <= Number(opts.runs); i++) {
    const load = await autocannon({ url: server.url, connections: 32, duration: Number(opts.duration), requests: [{ method: 'GET', path }] });
    await show(`load ${i}`, load.requests.average.toFixed(0));
  }
  await new Promise((resolve) => setTimeout(resolve, 5_000));
  await show('5 s idle');
} finally {
  await server.stop();
}
