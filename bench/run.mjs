#!/usr/bin/env node
// Gatehouse benchmarks: starts the built server on SQLite or PostgreSQL, prepares an app and a user,
// drives each scenario with autocannon and prints Markdown rows (bench/README.md has the figures and
// how to read them). A benchmark, not a test: nothing here asserts on timings.
//
//   npm run build && npm run bench -- [--db sqlite|postgres] [--duration 10] [--connections 10] [--repeat 1] [--only signin,me]
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { measureArgon2 } from './lib/argon2.mjs';
import { measureJose, startCeilingServer } from './lib/ceilings.mjs';
import { prepareFixtures } from './lib/fixtures.mjs';
import { runLoad } from './lib/load.mjs';
import { startServer } from './lib/server.mjs';
import { SCENARIOS } from './scenarios.mjs';

/** Measured beside the scenarios, in the same run: bare Fastify, bare Fastify + one RS256 verify, in-process jose. */
const CEILINGS = ['ceiling_hello', 'ceiling_verify', 'ceiling_jose'];

const USAGE = `usage: npm run bench -- [options]   (run \`npm run build\` first)
  --db sqlite|postgres     database behind the server (default sqlite)
  --duration SECONDS       load time per scenario (default 10)
  --connections N          concurrent connections (default 10)
  --repeat N               run each measurement N times and print the median one (default 1)
  --only NAMES             comma-separated subset of: ${SCENARIOS.map((s) => s.name).join(', ')}, argon2, ${CEILINGS.join(', ')}
  --workers N              gatehouse serve --workers N (N > 1 needs Redis: --redis-url)
  --redis-url URL          REDIS_URL for the server (default: none; redis://127.0.0.1:6379 when --workers > 1)
  --log-level LEVEL        the server's LOG_LEVEL (default info, the server's default)
  --cpu-prof DIR           write the server's V8 CPU profile(s) to DIR (summarize: node bench/lib/profile-summary.mjs DIR/*.cpuprofile)
  --settle-seconds N       longest idle after start waiting for V8's memory reducer before the idle RSS reading (default 120; 0 skips it)
  --node-flags "FLAGS"     extra node flags for the server, e.g. "--max-semi-space-size=4" (memory vs throughput)
  --in-flight N            jose operations in flight for the in-process sign/verify ceiling (default 32)
  --argon2-seconds SECONDS time per bare-argon2id measurement (default 5)
  --pg-url URL             PostgreSQL admin URL (default $BENCH_PG_URL or postgres://postgres@127.0.0.1:5432/postgres)`;

function options() {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite' },
      duration: { type: 'string', default: '10' },
      connections: { type: 'string', default: '10' },
      repeat: { type: 'string', default: '1' },
      only: { type: 'string' },
      'argon2-seconds': { type: 'string', default: '5' },
      workers: { type: 'string', default: '1' },
      'redis-url': { type: 'string' },
      'log-level': { type: 'string', default: 'info' },
      'in-flight': { type: 'string', default: '32' },
      'cpu-prof': { type: 'string' },
      'node-flags': { type: 'string', default: '' },
      'settle-seconds': { type: 'string', default: '120' },
      'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const known = [...SCENARIOS.map((s) => s.name), 'argon2', ...CEILINGS];
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
    repeat: Math.round(positive('repeat')),
    argon2Seconds: positive('argon2-seconds'),
    workers: Math.round(positive('workers')),
    redisUrl: values['redis-url'] ?? (Number(values.workers) > 1 ? 'redis://127.0.0.1:6379' : undefined),
    logLevel: values['log-level'],
    inFlight: Math.round(positive('in-flight')),
    cpuProfDir: values['cpu-prof'],
    nodeFlags: values['node-flags'].split(/\s+/).filter(Boolean),
    settleSeconds: Number(values['settle-seconds']),
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

/** The middle element by `key` (the lower middle for an even count): one real run, not an average of runs. */
function median(items, key) {
  const sorted = [...items].sort((a, b) => key(a) - key(b));
  return sorted[Math.floor((sorted.length - 1) / 2)];
}

const ARGON2_CONCURRENCY = [1, 2, 4];

/** Prints the bare-argon2id table from one or more measurements (the median one per concurrency). */
function argon2Section(runs, seconds) {
  const repeat = runs.length;
  const rows = runs[0].rows.map((_, i) => median(runs.map((run) => run.rows[i]), (r) => r.opsPerSecond));
  const each = repeat > 1 ? `, median of ${repeat} runs` : '';
  console.log(`\nBare argon2id verify (@node-rs/argon2, ${runs[0].params}, ${runs[0].encodedPrefix}), ${seconds} s each${each}:\n`);
  console.log('| concurrent verifies | verifies/s | ms per verify (wall, each) |');
  console.log('| --- | --- | --- |');
  for (const r of rows) console.log(`| ${r.concurrency} | ${fmt(r.opsPerSecond)} | ${fmt(r.msPerOp)} |`);
  return { rows };
}

async function main() {
  const opts = options();
  const selected = SCENARIOS.filter((s) => opts.only.includes(s.name));
  const repeated = opts.repeat > 1 ? `, median of ${opts.repeat} runs` : '';
  console.log(
    `# gatehouse bench: ${opts.db}, ${opts.duration} s per scenario, ${opts.connections} connections${repeated}, ` +
      `${opts.workers} worker(s), LOG_LEVEL=${opts.logLevel}${opts.nodeFlags.length ? `, node ${opts.nodeFlags.join(' ')}` : ''}`,
  );
  console.log(`machine: ${machine()}; started ${new Date().toISOString()}; load average (1 min) ${load1()}`);

  // The bare hash is measured with the server idle, right before each sign-in run, so the two see the
  // same machine (it is shared); without sign-in it is measured alone.
  const argon2Runs = [];
  const measureBare = async () => argon2Runs.push(await measureArgon2(opts.argon2Seconds, ARGON2_CONCURRENCY));
  const ceilings = await measureCeilings(opts);
  if (!selected.length) {
    if (opts.only.includes('argon2')) {
      for (let i = 0; i < opts.repeat; i += 1) await measureBare();
      argon2Section(argon2Runs, opts.argon2Seconds);
    }
    return;
  }

  const server = await startServer({ db: opts.db, pgAdminUrl: opts.pgUrl, workers: opts.workers, redisUrl: opts.redisUrl, logLevel: opts.logLevel, cpuProfDir: opts.cpuProfDir, nodeFlags: opts.nodeFlags });
  // Idle memory of the freshly started server (one worker: the process itself; several: the primary only).
  const idleRss = server.rss();
  // V8 shrinks the heap grown during start-up (schema compilation) once the process has been idle for a
  // while (its memory reducer); what an idle server holds is the figure after that.
  // With several workers the reading is the primary's, which runs no server: nothing to wait for.
  const settled = opts.settleSeconds > 0 && opts.workers === 1 && idleRss ? await settle(server, idleRss.rss, opts.settleSeconds) : undefined;
  const stopOnSignal = () => server.stop().finally(() => process.exit(130));
  process.once('SIGINT', stopOnSignal);
  process.once('SIGTERM', stopOnSignal);
  const notes = [];
  const results = {};
  const signinRates = [];
  try {
    const fx = await prepareFixtures(server);
    const runner = {
      duration: opts.duration,
      connections: opts.connections,
      // One request shape per run, each in a fresh load process (bench/lib/load.mjs).
      load: (spec) => runLoad({ url: server.url, connections: opts.connections, duration: opts.duration, ...spec }),
    };
    console.log(`\n| scenario | req/s (avg) | p50 (ms) | p99 (ms) | non-2xx |`);
    console.log('| --- | --- | --- | --- | --- |');
    const scenarioPeaks = [];
    for (const scenario of selected) {
      const runs = [];
      server.resetPeak();
      for (let i = 0; i < opts.repeat; i += 1) {
        if (scenario.name === 'signin') await measureBare();
        const before = load1();
        const prepared = await scenario.prepare(server, fx, runner);
        const serverBefore = server.cpu();
        const run = await runner.load(prepared.options);
        prepared.done?.(run);
        const { result, cpu: loadCpu } = run;
        const cpu = cpuPerRequest(serverBefore, server.cpu(), loadCpu, result.requests.total);
        if (scenario.name === 'signin') signinRates.push(result.requests.average);
        runs.push({ before, result, cpu, extras: prepared.extraRows ?? [], notes: prepared.notes?.(result) ?? [] });
      }
      const rps = (run) => run.result.requests.average;
      const chosen = median(runs, rps);
      for (const [i, extra] of chosen.extras.entries()) {
        const mid = median(runs.map((run) => run.extras[i]), (e) => e.result.requests.average);
        console.log(row(extra.name, mid.result));
        notes.push(`${extra.name}: ${extra.endpoint}`);
      }
      results[scenario.name] = Object.assign(chosen.result, { cpuPerRequest: chosen.cpu });
      console.log(row(scenario.name, chosen.result));
      const all = runs.length > 1 ? `; req/s of the ${runs.length} runs: ${runs.map((run) => fmt(rps(run))).join(', ')}` : '';
      const cpu = chosen.cpu ? `; CPU per request: server ${fmt(chosen.cpu.server)} µs (all threads), load generator ${fmt(chosen.cpu.bench)} µs` : '';
      notes.push(`${scenario.name}: ${scenario.endpoint}; ${chosen.result.requests.total} requests; load average before ${chosen.before}${cpu}${all}`);
      notes.push(...chosen.notes);
      const peak = server.rss()?.peak;
      if (peak) scenarioPeaks.push(`${scenario.name} ${fmt(peak)}`);
    }
    const loaded = server.rss();
    // Work still in flight when the load stops (password hashes hold 19 MiB each) ends within a second or two.
    await new Promise((r) => setTimeout(r, 3000));
    const drained = server.rss();
    if (idleRss && loaded) {
      notes.push(
        `server RSS: ${fmt(idleRss.rss)} MB idle right after start${settled ? `, ${settled}` : ''}; ${fmt(loaded.rss)} MB right after the scenarios, ${fmt(drained?.rss)} MB 3 s later` +
          (opts.workers > 1 ? ' (primary process only)' : ''),
      );
      // VmHWM is reset (clear_refs) before each scenario: each figure is that scenario's own peak.
      if (scenarioPeaks.length) notes.push(`server peak RSS (MB) while each scenario ran: ${scenarioPeaks.join(', ')}` + (opts.workers > 1 ? ' (primary process only)' : ''));
    }
  } finally {
    await server.stop();
    process.off('SIGINT', stopOnSignal);
    process.off('SIGTERM', stopOnSignal);
  }
  const argon2 = argon2Runs.length ? argon2Section(argon2Runs, opts.argon2Seconds) : undefined;
  console.log('');
  for (const note of notes) console.log(`- ${note}`);

  const signin = results.signin;
  const byConcurrency = (n) => argon2?.rows.find((r) => r.concurrency === n);
  const [single, pair, four] = [byConcurrency(1), byConcurrency(2), byConcurrency(4)];
  if (signin && single && pair && four) {
    const rate = signin.requests.average;
    // With both cores busy, one request costs cores / throughput of machine time; so does one verify.
    const cores = availableParallelism();
    const perRequest = (cores * 1000) / rate;
    const perHash = (cores * 1000) / pair.opsPerSecond;
    console.log(
      `- sign-in vs bare argon2id: ${fmt(rate)} sign-ins/s = ${fmt((100 * rate) / pair.opsPerSecond, 0)}% of ${fmt(pair.opsPerSecond)} bare verifies/s ` +
        `at 2 concurrent (${fmt((100 * rate) / four.opsPerSecond, 0)}% of ${fmt(four.opsPerSecond)}/s at 4, libuv's default thread-pool size); ` +
        `${fmt(perRequest)} ms of machine time per sign-in vs ${fmt(perHash)} ms per bare verify (${fmt(single.msPerOp)} ms sequential): ` +
        `≈ ${fmt(perRequest - perHash)} ms beyond the hash`,
    );
    if (signinRates.length > 1) {
      const ratios = signinRates.map((r, i) => `${fmt((100 * r) / argon2Runs[i].rows.find((row) => row.concurrency === 2).opsPerSecond, 0)}%`);
      console.log(`- sign-ins/s as a share of the bare 2-concurrent rate measured just before it, run by run: ${ratios.join(', ')}`);
    }
  }
  ratios(results, ceilings, byConcurrency(2));
  console.log(`- finished ${new Date().toISOString()}; load average (1 min) ${load1()}`);
}

/**
 * Idles the fresh server until V8's memory reducer has run (its first memory-reducing collection gives
 * back the young generation and the old space that start-up grew: RSS falls by 15-25 MB at once) or for
 * `maxSeconds`, reading RSS every second. V8 starts that collection at one of its 8-second checks once it
 * judges the allocation rate low, which on this machine has been 16 to 40 s after start, and at the latest
 * by its watchdog, 100 s after the last full collection. Returns the note's wording.
 */
async function settle(server, startRss, maxSeconds) {
  const DROP_MB = 10;
  let at35;
  for (let second = 1; second <= maxSeconds; second += 1) {
    await new Promise((r) => setTimeout(r, 1000));
    const now = server.rss()?.rss;
    if (now === undefined) return undefined;
    if (second === 35) at35 = now;
    if (now < startRss - DROP_MB) {
      // The reduction is three collections about 0.6 s apart: read after the last.
      await new Promise((r) => setTimeout(r, 2500));
      const after = server.rss()?.rss ?? now;
      const early = at35 !== undefined ? `; ${fmt(at35)} MB at 35 s` : '';
      return `${fmt(after)} MB once V8's memory reducer had run (${second} s into the idle${early})`;
    }
  }
  return `${fmt(server.rss()?.rss ?? NaN)} MB after ${maxSeconds} s idle (V8's memory reducer had not run)`;
}

/** CPU time per request during one load run, in µs: the server's (from /proc) and the load process's (autocannon). */
function cpuPerRequest(serverBefore, serverAfter, loadCpu, requests) {
  if (serverBefore === undefined || serverAfter === undefined || !requests) return undefined;
  return { server: ((serverAfter - serverBefore) * 1e6) / requests, bench: loadCpu / requests };
}

/** Runs the selected ceilings (median of --repeat runs each) and prints their table; returns the figures. */
async function measureCeilings(opts) {
  const out = {};
  const wanted = CEILINGS.filter((name) => opts.only.includes(name));
  if (!wanted.length) return out;
  console.log(`\nCeilings (same run, same load settings):\n`);
  console.log('| ceiling | req/s or ops/s | p50 (ms) | p99 (ms) | non-2xx |');
  console.log('| --- | --- | --- | --- | --- |');
  if (wanted.includes('ceiling_hello') || wanted.includes('ceiling_verify')) {
    const ceiling = await startCeilingServer();
    const idle = ceiling.rss();
    try {
      const load = async (path, headers) => {
        const before = ceiling.cpu();
        const { result, cpu } = await runLoad({ url: ceiling.url, connections: opts.connections, duration: opts.duration, method: 'GET', path, headers });
        return Object.assign(result, { cpuPerRequest: cpuPerRequest(before, ceiling.cpu(), cpu, result.requests.total) });
      };
      for (const [name, path, headers] of [
        ['ceiling_hello', '/hello', {}],
        ['ceiling_verify', '/verify', { authorization: `Bearer ${ceiling.token}` }],
      ]) {
        if (!wanted.includes(name)) continue;
        const runs = [];
        for (let i = 0; i < opts.repeat; i += 1) runs.push(await load(path, headers));
        const chosen = median(runs, (r) => r.requests.average);
        out[name] = { chosen, all: runs.map((r) => r.requests.average) };
        console.log(row(name, chosen));
      }
    } finally {
      const after = ceiling.rss();
      if (idle && after) out.bareRss = { idle: idle.rss, peak: after.peak };
      await ceiling.stop();
    }
  }
  if (wanted.includes('ceiling_jose')) {
    const runs = [];
    for (let i = 0; i < opts.repeat; i += 1) runs.push(await measureJose(Math.min(opts.duration, 5), opts.inFlight));
    const sign = median(runs, (r) => r.signPerSecond);
    const verify = median(runs, (r) => r.verifyPerSecond);
    out.jose = { sign: sign.signPerSecond, verify: verify.verifyPerSecond, signAll: runs.map((r) => r.signPerSecond), verifyAll: runs.map((r) => r.verifyPerSecond) };
    console.log(`| jose RS256 sign, in process, ${opts.inFlight} in flight | ${fmt(out.jose.sign)} | | | |`);
    console.log(`| jose RS256 verify, in process, ${opts.inFlight} in flight | ${fmt(out.jose.verify)} | | | |`);
  }
  const all = (name) => out[name] && out[name].all.length > 1 ? ` (runs: ${out[name].all.map((v) => fmt(v)).join(', ')})` : '';
  const cpu = (name) => {
    const c = out[name]?.chosen.cpuPerRequest;
    return c ? `; CPU per request: server ${fmt(c.server)} µs, load generator ${fmt(c.bench)} µs` : '';
  };
  for (const name of ['ceiling_hello', 'ceiling_verify']) if (out[name]) console.log(`- ${name}: ${fmt(out[name].chosen.requests.average)} req/s${all(name)}${cpu(name)}`);
  if (out.jose && out.jose.signAll.length > 1) console.log(`- jose sign runs: ${out.jose.signAll.map((v) => fmt(v)).join(', ')}; verify runs: ${out.jose.verifyAll.map((v) => fmt(v)).join(', ')}`);
  if (out.bareRss) console.log(`- bare Fastify (ceiling server) RSS: ${fmt(out.bareRss.idle)} MB idle, peak ${fmt(out.bareRss.peak)} MB`);
  return out;
}

/** Each scenario against its ceiling from this run (issue 14's targets). */
function ratios(results, ceilings, argon2Pair) {
  const line = (name, value, ceilingName, ceiling) =>
    value !== undefined && ceiling ? console.log(`- ratio ${name}: ${fmt(value)} / ${fmt(ceiling)} (${ceilingName}) = ${(value / ceiling).toFixed(2)}`) : undefined;
  const rps = (name) => results[name]?.requests.average;
  line('health', rps('health'), 'bare Fastify GET /hello', ceilings.ceiling_hello?.chosen.requests.average);
  line('me', rps('me'), 'bare Fastify + one RS256 verify', ceilings.ceiling_verify?.chosen.requests.average);
  // The steadier comparison on a shared machine: what one request costs each server in CPU (all threads).
  const cost = (name, ceilingName, ceiling) => {
    const mine = results[name]?.cpuPerRequest?.server;
    const bare = ceiling?.chosen.cpuPerRequest?.server;
    if (mine && bare) console.log(`- CPU per request ${name}: server ${fmt(mine)} µs, ${ceilingName} ${fmt(bare)} µs: bare / server = ${(bare / mine).toFixed(2)}`);
  };
  cost('health', 'bare Fastify GET /hello', ceilings.ceiling_hello);
  cost('me', 'bare Fastify + one RS256 verify', ceilings.ceiling_verify);
  line('refresh', rps('refresh'), 'jose RS256 sign rate in process', ceilings.jose?.sign);
  line('signin', rps('signin'), 'bare argon2id verify, 2 concurrent', argon2Pair?.opsPerSecond);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
