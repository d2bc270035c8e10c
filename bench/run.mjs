#!/usr/bin/env node
// Gatehouse benchmarks: starts the built server on SQLite or PostgreSQL, prepares an app and a user,
// drives each scenario with autocannon and prints Markdown rows (bench/README.md has the figures and
// how to read them). A benchmark, not a test: nothing here asserts on timings.
//
//   npm run build && npm run bench -- [--db sqlite|postgres] [--duration 10] [--connections 10] [--only signin,me]
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { measureArgon2 } from './lib/argon2.mjs';
import { prepareFixtures } from './lib/fixtures.mjs';
import { startServer } from './lib/server.mjs';
import { SCENARIOS } from './scenarios.mjs';

const USAGE = `usage: npm run bench -- [options]   (run \`npm run build\` first)
  --db sqlite|postgres     database behind the server (default sqlite)
  --duration SECONDS       load time per scenario (default 10)
  --connections N          concurrent connections (default 10)
  --only NAMES             comma-separated subset of: ${SCENARIOS.map((s) => s.name).join(', ')}, argon2
  --argon2-seconds SECONDS time per bare-argon2id measurement (default 5)
  --pg-url URL             PostgreSQL admin URL (default $BENCH_PG_URL or postgres://postgres@127.0.0.1:5432/postgres)`;

function options() {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      only: { type: 'string' },
      'argon2-seconds': { type: 'string', default: '5' },
      'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const known = [...SCENARIOS.map((s) => s.name), 'argon2'];
  const only = values.only ? values.only.split(',').map((s) => s.trim()) : known;
  const unknown = only.filter((name) => !known.includes(name));
  const positive = (name) => {
    const n = Number(values[name]);
    if (!(n > 0)) fail(`--${name} must be a positive number`);
    return n;
  };
  if (!['sqlite', 'postgres'].includes(values.db)) fail('--db must be sqlite or postgres');
  if (unknown.length) fail(`unknown scenario(s): ${unknown.join(', ')}`);
  return {
    db: values.db,
    duration: positive('duration'),
    connections: Math.round(positive('connections')),
    argon2Seconds: positive('argon2-seconds'),
    pgUrl: values['pg-url'],
    only,
  };
}

function fail(message) {
  console.error(`${message}\n\n${USAGE}`);
  process.exit(2);
}

function machine() {
  const cpu = readFileSync('/proc/cpuinfo', 'utf8').match(/^model name\s*:\s*(.+)$/m)?.[1] ?? 'unknown CPU';
  return `${availableParallelism()} cores (${cpu}), Node ${process.version}`;
}

const load1 = () => loadavg()[0].toFixed(1);
const fmt = (n, digits = 1) => n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });

function row(name, result) {
  const failures = result.non2xx + result.errors;
  const detail = result.errors ? ` (+${result.errors} errors)` : '';
  const codes = Object.keys(result.statusCodeStats ?? {}).filter((code) => !code.startsWith('2'));
  const which = codes.length ? ` [${codes.join(', ')}]` : '';
  return `| ${name} | ${fmt(result.requests.average)} | ${fmt(result.latency.p50)} | ${fmt(result.latency.p99)} | ${failures}${which}${detail} |`;
}

async function argon2Section(seconds) {
  const measured = await measureArgon2(seconds, [1, 2, 4]);
  console.log(`\nBare argon2id verify (@node-rs/argon2, ${measured.params}, ${measured.encodedPrefix}), ${seconds} s each:\n`);
  console.log('| concurrent verifies | verifies/s | ms per verify (wall, each) |');
  console.log('| --- | --- | --- |');
  for (const r of measured.rows) console.log(`| ${r.concurrency} | ${fmt(r.opsPerSecond)} | ${fmt(r.msPerOp)} |`);
  return measured;
}

async function main() {
  const opts = options();
  const selected = SCENARIOS.filter((s) => opts.only.includes(s.name));
  console.log(`# gatehouse bench: ${opts.db}, ${opts.duration} s per scenario, ${opts.connections} connections`);
  console.log(`machine: ${machine()}; started ${new Date().toISOString()}; load average (1 min) ${load1()}`);

  // The bare hash is measured with no server running, so it has the CPU to itself.
  const argon2 = opts.only.includes('argon2') || opts.only.includes('signin') ? await argon2Section(opts.argon2Seconds) : undefined;
  if (!selected.length) return;

  const server = await startServer({ db: opts.db, pgAdminUrl: opts.pgUrl });
  const stopOnSignal = () => server.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const notes = [];
  const results = {};
  try {
    const fx = await prepareFixtures(server);
    const runner = {
      duration: opts.duration,
      connections: opts.connections,
      // One request shape per run; autocannon takes the path and per-request hooks only inside `requests`.
      load: ({ method, path, headers, body, setupRequest, onResponse, ...rest }) =>
        autocannon({
          url: server.url,
          connections: opts.connections,
          duration: opts.duration,
          ...rest,
          requests: [{ method, path, headers, body, ...(setupRequest && { setupRequest }), ...(onResponse && { onResponse }) }],
        }),
    };
    console.log(`\n| scenario | req/s (avg) | p50 (ms) | p99 (ms) | non-2xx |`);
    console.log('| --- | --- | --- | --- | --- |');
    for (const scenario of selected) {
      const before = load1();
      const prepared = await scenario.prepare(server, fx, runner);
      for (const extra of prepared.extraRows ?? []) {
        console.log(row(extra.name, extra.result));
        notes.push(`${extra.name}: ${extra.endpoint}`);
      }
      const result = await runner.load(prepared.options);
      results[scenario.name] = result;
      console.log(row(scenario.name, result));
      notes.push(`${scenario.name}: ${scenario.endpoint}; ${result.requests.total} requests; load average before ${before}`);
      notes.push(...(prepared.notes?.(result) ?? []));
    }
  } finally {
    await server.stop();
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
  }
  console.log('');
  for (const note of notes) console.log(`- ${note}`);

  const signin = results.signin;
  const pair = argon2?.rows.find((r) => r.concurrency === 2);
  const single = argon2?.rows.find((r) => r.concurrency === 1);
  if (signin && pair && single) {
    const share = (100 * signin.requests.average) / pair.opsPerSecond;
    // With both cores busy, one request costs cores / throughput of machine time.
    const perRequest = (availableParallelism() * 1000) / signin.requests.average;
    const perHash = (availableParallelism() * 1000) / pair.opsPerSecond;
    console.log(
      `- sign-in vs bare argon2id: ${fmt(signin.requests.average)} sign-ins/s = ${fmt(share, 0)}% of ${fmt(pair.opsPerSecond)} bare verifies/s ` +
        `(2 concurrent); about ${fmt(perRequest)} ms of machine time per sign-in vs ${fmt(perHash)} ms per bare verify ` +
        `(${fmt(single.msPerOp)} ms sequential); overhead beyond the hash ≈ ${fmt(perRequest - perHash)} ms per sign-in`,
    );
  }
  console.log(`- finished ${new Date().toISOString()}; load average (1 min) ${load1()}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
