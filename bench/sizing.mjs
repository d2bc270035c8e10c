#!/usr/bin/env node
// Sizing figures (docs/sizing.md; bench/README.md, "Sizing"), all in one run, on PostgreSQL with a Redis of
// the run's own (so INFO commandstats counts this server's commands only), one server process:
// 1. requests per second of the server's CPU ("per vCPU": what one core kept busy by the server answers) for
//    password sign-in, POST /v1/sign_in_tokens, refresh, GET /v1/me, a Secret GET /v1/users, and GET /private of
//    an integrator's Fastify API verifying tokens with @gatehouse/server (bench/lib/verify-server.mjs); --rounds
//    rounds each (median, min-max), and the CPU of the database's backends per request beside them;
// 2. database and Redis operations per request: a count pass of --count requests per route, one at a time,
//    pg_stat_database (commits, rows read/written) and INFO commandstats read before and after;
// 3. memory: RSS right after start, after --settle seconds of idle, after --sessions sessions made and each used
//    once by GET /v1/me; the sessions' size in the database;
// 4. connections: the server's PostgreSQL backends (pg_stat_activity) and Redis clients after the load.
//
//   npm run build && node bench/sizing.mjs [--rounds 3] [--seconds 8] [--connections 16] [--count 200] [--sessions 20000]
//     [--parts load,count,memory] [--rate-limits off|on]
import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import pg from 'pg';
import { call, prepareFixtures } from './lib/fixtures.mjs';
import { runLoad } from './lib/load.mjs';
import { DEFAULT_RATE_LIMITS } from '../dist/src/config/rate-limits.js';
import { cpuOf, freePort, ROOT, rssOf, startServer } from './lib/server.mjs';

const { values: opts } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    seconds: { type: 'string', default: '8' },
    connections: { type: 'string', default: '16' },
    count: { type: 'string', default: '200' },
    sessions: { type: 'string', default: '20000' },
    settle: { type: 'string', default: '30' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
    // `on`: every rate-limit window of the built-in table, each with its own window and key but a limit of 1,000,000,
    // so the count pass shows the Redis commands a request costs in production and no request is refused.
    'rate-limits': { type: 'string', default: 'off' },
    // Which parts run: load (1), count (2), memory (3); e.g. `--parts count --rate-limits on`.
    parts: { type: 'string', default: 'load,count,memory' },
  },
});
const parts = new Set(opts.parts.split(','));
const rateLimitsEnv = opts['rate-limits'] === 'on'
  ? { RATE_LIMITS: Object.entries(DEFAULT_RATE_LIMITS).map(([name, rule]) => `${name}=1000000/${rule.windowSeconds}`).join(',') }
  : {};
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const json = { 'content-type': 'application/json' };
const load1 = () => Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);

// A Redis of this run's own: commandstats and the client count are this server's alone.
const redisPort = await freePort();
const redis = spawn('redis-server', ['--port', String(redisPort), '--save', '', '--appendonly', 'no', '--bind', '127.0.0.1'], { stdio: 'ignore' });
const redisCli = (...args) => execFileSync('redis-cli', ['-p', String(redisPort), ...args], { encoding: 'utf8' });
for (let i = 0; i < 100; i++) {
  try {
    if (redisCli('ping').trim() === 'PONG') break;
  } catch {}
  await sleep(50);
}
const redisCommands = () => {
  const calls = {};
  for (const match of redisCli('info', 'commandstats').matchAll(/cmdstat_([a-z|_]+):calls=(\d+)/g)) calls[match[1]] = Number(match[2]);
  return calls;
};

const server = await startServer({ db: 'postgres', pgAdminUrl: opts['pg-url'], redisUrl: `redis://127.0.0.1:${redisPort}`, logLevel: 'info', env: rateLimitsEnv });
const dbName = new URL(server.databaseUrl).pathname.slice(1);
const admin = new pg.Client({ connectionString: opts['pg-url'] });
await admin.connect();
const dbCounters = async () => (await admin.query('SELECT xact_commit, xact_rollback, tup_fetched, tup_returned, tup_inserted, tup_updated, tup_deleted FROM pg_stat_database WHERE datname = $1', [dbName])).rows[0];
const backends = async () => (await admin.query('SELECT pid FROM pg_stat_activity WHERE datname = $1', [dbName])).rows.map((row) => row.pid);
// The backends' CPU seconds by pid; a delta counts only the backends alive at both readings.
const backendCpu = (pids) => new Map(pids.map((pid) => [pid, cpuOf(pid)]).filter(([, cpu]) => cpu !== undefined));
const cpuDelta = (before, after) => [...after].reduce((sum, [pid, cpu]) => sum + (before.has(pid) ? cpu - before.get(pid) : 0), 0);
const out = [];
const say = (line) => {
  out.push(line);
  console.log(line);
};
let verifyServer;
try {
  const rssStart = server.rss().rss;
  if (parts.has('memory')) await sleep(Number(opts.settle) * 1000);
  const rssIdle = server.rss().rss;
  const fx = await prepareFixtures(server);
  const url = server.url;
  const mint = async (n, field) => {
    const tokens = [];
    const one = async () => {
      while (tokens.length < n) {
        const body = await call(server, 'POST', '/v1/sign_in_tokens', { body: { user_id: fx.userId }, headers: { authorization: `Bearer ${fx.secretKey}` } });
        tokens.push(body[field]);
      }
    };
    await Promise.all(Array.from({ length: 8 }, one));
    return tokens.slice(0, n);
  };

  // The integrator's API, verifying tokens offline with @gatehouse/server.
  const verifyPort = await freePort();
  verifyServer = spawn(process.execPath, [join(ROOT, 'bench/lib/verify-server.mjs'), String(verifyPort), url, fx.appId], { stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise((ready) => verifyServer.stdout.on('data', (data) => String(data).includes('listening') && ready()));
  const bearer = { authorization: `Bearer ${fx.accessToken}` };

  const routes = [
    { name: 'signin', what: 'POST /v1/signins (password, argon2id at the default cost)', spec: { method: 'POST', path: '/v1/signins', headers: { ...json, 'x-publishable-key': fx.publishableKey }, body: JSON.stringify({ email: fx.email, password: fx.password }) } },
    { name: 'sign_in_tokens', what: 'POST /v1/sign_in_tokens (Secret: a new session)', spec: { method: 'POST', path: '/v1/sign_in_tokens', headers: { ...json, authorization: `Bearer ${fx.secretKey}` }, body: JSON.stringify({ user_id: fx.userId }), collect: 'refresh_token' } },
    { name: 'refresh', what: 'POST /v1/tokens/session (refresh)', spec: { method: 'POST', path: '/v1/tokens/session', headers: { ...json, 'x-publishable-key': fx.publishableKey } }, refresh: true },
    { name: 'me', what: 'GET /v1/me', spec: { method: 'GET', path: '/v1/me', headers: { 'x-publishable-key': fx.publishableKey, ...bearer } } },
    { name: 'users', what: 'GET /v1/users?limit=20 (Secret)', spec: { method: 'GET', path: '/v1/users?limit=20', headers: { authorization: `Bearer ${fx.secretKey}` } } },
    { name: 'verify', what: 'GET /private of an API using @gatehouse/server (JWKS-verified, offline)', spec: { method: 'GET', path: '/private', headers: bearer }, url: `http://127.0.0.1:${verifyPort}`, pid: verifyServer.pid },
  ];

  // 1. Requests per CPU-second of the process that answers them.
  const connections = Number(opts.connections);
  const seconds = Number(opts.seconds);
  const minted = []; // refresh tokens by round of sign_in_tokens: refresh's round r takes round r's
  say(`\n| route | requests per server CPU-second (median, min-max) | req/s (median) | database backends' CPU per request (µs) | p99 ms | load average |`);
  say('| --- | --- | --- | --- | --- | --- |');
  for (const route of parts.has('load') ? routes : []) {
    const perCpu = [];
    const rates = [];
    const dbCpu = [];
    const p99 = [];
    const loads = [];
    for (let round = 0; round < Number(opts.rounds); round++) {
      // sign_in_tokens runs 1.5x as long, so its round mints more refresh tokens than refresh's round uses.
      const spec = { url: route.url ?? url, connections, duration: route.name === 'sign_in_tokens' ? Math.ceil(seconds * 1.5) : seconds, ...route.spec };
      if (route.refresh) Object.assign(spec, { bodies: minted[round].map((token) => JSON.stringify({ refresh_token: token })), exhaustedBody: JSON.stringify({ refresh_token: 'none-left' }) });
      const pid = route.pid ?? server.pid;
      const pids = await backends();
      loads.push(load1());
      const cpu0 = cpuOf(pid);
      const db0 = backendCpu(pids);
      const run = await runLoad(spec);
      const cpu = cpuOf(pid) - cpu0;
      const dbUsed = cpuDelta(db0, backendCpu(pids));
      const ok = run.result.requests.total - run.result.non2xx - (run.exhausted ?? 0);
      if (route.name === 'sign_in_tokens') minted.push(run.collected);
      if (run.result.non2xx > (run.exhausted ?? 0)) throw new Error(`${route.name}: ${run.result.non2xx} answers were not 2xx`);
      perCpu.push(ok / cpu);
      rates.push(ok / spec.duration);
      dbCpu.push(route.pid ? 0 : (dbUsed * 1e6) / ok);
      p99.push(run.result.latency.p99);
    }
    const f = (xs, d = 0) => `${median(xs).toFixed(d)} (${Math.min(...xs).toFixed(d)}-${Math.max(...xs).toFixed(d)})`;
    say(`| ${route.what} | **${f(perCpu)}** | ${median(rates).toFixed(0)} | ${route.pid ? '-' : f(dbCpu)} | ${median(p99)} | ${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)} |`);
  }

  // 2. Database and Redis operations per request, --count requests per route one at a time.
  const count = Number(opts.count);
  const flush = () => sleep(11_000); // PostgreSQL 15 flushes an idle backend's counters within 10 s
  say(`\n| route (${count} requests, one at a time) | commits | rows read (fetched) | rows inserted | updated | deleted | Redis commands (by command) |`);
  say('| --- | --- | --- | --- | --- | --- | --- |');
  const countTokens = await mint(count, 'refresh_token');
  for (const route of parts.has('count') ? routes.filter((r) => !r.pid) : []) {
    await flush();
    const db0 = await dbCounters();
    const redis0 = redisCommands();
    for (let i = 0; i < count; i++) {
      const body = route.refresh ? JSON.stringify({ refresh_token: countTokens[i] }) : route.spec.body;
      const res = await fetch(url + route.spec.path, { method: route.spec.method, headers: route.spec.headers, body });
      if (!res.ok) throw new Error(`${route.name}: ${res.status} ${await res.text()}`);
      await res.arrayBuffer();
    }
    await flush();
    const db1 = await dbCounters();
    const redis1 = redisCommands();
    const per = (key) => ((Number(db1[key]) - Number(db0[key])) / count).toFixed(2);
    const commands = Object.entries(redis1)
      .map(([name, calls]) => [name, (calls - (redis0[name] ?? 0)) / count])
      .filter(([name, n]) => n > 0 && name !== 'info')
      .map(([name, n]) => `${name} ${n.toFixed(2)}`)
      .join(', ');
    say(`| ${route.what} | ${per('xact_commit')} | ${per('tup_fetched')} | ${per('tup_inserted')} | ${per('tup_updated')} | ${per('tup_deleted')} | ${commands || 'none'} |`);
  }

  // 3. Memory with many live sessions: each made, then used once by GET /v1/me (the verified-token cache).
  const sessions = parts.has('memory') ? Number(opts.sessions) : 0;
  const before = server.rss().rss;
  const access = await mint(sessions, 'token');
  const afterMint = server.rss().rss;
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < access.length) {
        const token = access[next++];
        const res = await fetch(`${url}/v1/me`, { headers: { 'x-publishable-key': fx.publishableKey, authorization: `Bearer ${token}` } });
        if (!res.ok) throw new Error(`me: ${res.status}`);
        await res.arrayBuffer();
      }
    }),
  );
  const afterUse = server.rss().rss;
  const db = new pg.Client({ connectionString: server.databaseUrl });
  await db.connect();
  const { rows: [size] } = await db.query("SELECT count(*)::int AS n, pg_total_relation_size('sessions') AS bytes FROM sessions");
  const { rows: [users] } = await db.query("SELECT pg_total_relation_size('users') AS bytes, (SELECT count(*)::int FROM users) AS n");
  await db.end();
  if (parts.has('memory')) say(`\nRSS (MB): right after start ${rssStart.toFixed(1)}, after ${opts.settle} s idle ${rssIdle.toFixed(1)}; before the sessions ${before.toFixed(1)}, after ${sessions} more sessions made ${afterMint.toFixed(1)}, after each used once by GET /v1/me ${afterUse.toFixed(1)}; peak ${server.rss().peak.toFixed(1)}`);
  if (parts.has('memory')) say(`database: ${size.n} sessions in ${(size.bytes / 1e6).toFixed(1)} MB with their indexes (${((size.bytes / size.n) * 100_000 / 1e6).toFixed(0)} MB per 100,000); users table ${(users.bytes / 1e6).toFixed(2)} MB for ${users.n}`);

  // 4. Connections.
  const pgConnections = (await backends()).length;
  const redisClients = redisCli('client', 'list').trim().split('\n').filter((line) => !line.includes('cmd=client')).length;
  say(`connections of the one server process: PostgreSQL ${pgConnections} (pool max 20), Redis ${redisClients}; verify server RSS ${rssOf(verifyServer.pid)?.rss.toFixed(1)} MB`);
} finally {
  verifyServer?.kill();
  await admin.end();
  await server.stop();
  redis.kill();
}
