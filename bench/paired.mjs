// Paired comparison: two servers loaded AT THE SAME TIME, one autocannon each, for several rounds; each
// round compares their server CPU per request (user + system, every thread, from /proc). On a shared VM
// whose speed wanders from second to second, a sequential A/B moves more between rounds than the
// difference it looks for; two servers measured side by side see the same machine.
//
//   node bench/paired.mjs [--a DIR|hello] [--b DIR|hello] [--path /v1/health] [--auth none|me|secret] [--rounds 10] [--seconds 3] [--connections 16] [--db sqlite|postgres] [--a-idle 0]
//
// --a-idle N: A idles N seconds after its start before B starts and the load begins (a server that has
// idled long enough for V8's memory reducer against one loaded straight after its start).
// DIR is the root of a built checkout (its bench/lib/server.mjs and dist/ are used; default: this one);
// `hello` is the bare Fastify ceiling server. Prints each round and the median of B / A.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { cpuOf, freePort, ROOT } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    a: { type: 'string', default: ROOT },
    b: { type: 'string', default: ROOT },
    path: { type: 'string', default: '/v1/health' },
    rounds: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    db: { type: 'string', default: 'sqlite' },
    'a-idle': { type: 'string', default: '0' },
    auth: { type: 'string', default: 'none' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

async function start(which) {
  if (which === 'hello') {
    const port = await freePort();
    const child = spawn(process.execPath, [resolve(ROOT, 'bench/lib/ceiling-server.mjs'), String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((ready) => child.stdout.on('data', (data) => String(data).includes('listening') && ready()));
    return { label: 'bare Fastify', url: `http://127.0.0.1:${port}/hello`, headers: {}, pid: child.pid, stop: async () => void child.kill() };
  }
  const { startServer } = await import(resolve(which, 'bench/lib/server.mjs'));
  const server = await startServer({ db: values.db, pgAdminUrl: values['pg-url'], logLevel: 'info' });
  // --auth me: GET /v1/me with a publishable key and a session; --auth secret: the path with the secret key.
  const headers = {};
  if (values.auth !== 'none') {
    const { prepareFixtures } = await import(resolve(which, 'bench/lib/fixtures.mjs'));
    const fx = await prepareFixtures(server);
    if (values.auth === 'me') Object.assign(headers, { 'x-publishable-key': fx.publishableKey, authorization: `Bearer ${fx.accessToken}` });
    else headers.authorization = `Bearer ${fx.secretKey}`;
  }
  return { label: which, url: server.url + values.path, headers, pid: server.pid, stop: server.stop };
}

const connections = Number(values.connections);
async function load(target, seconds) {
  const before = cpuOf(target.pid);
  const result = await autocannon({ url: target.url, headers: target.headers, connections, duration: seconds });
  if (result.non2xx) throw new Error(`${target.label}: ${result.non2xx} answers were not 2xx`);
  return ((cpuOf(target.pid) - before) * 1e6) / result.requests.total;
}

const a = await start(values.a);
await new Promise((idled) => setTimeout(idled, Number(values['a-idle']) * 1000));
const b = await start(values.b);
try {
  await Promise.all([load(a, 2), load(b, 2)]); // warm-up
  const ratios = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const [costA, costB] = await Promise.all([load(a, Number(values.seconds)), load(b, Number(values.seconds))]);
    ratios.push(costB / costA);
    console.log(`round ${round + 1}: A ${costA.toFixed(1)} µs, B ${costB.toFixed(1)} µs a request, B / A ${(costB / costA).toFixed(3)}`);
  }
  ratios.sort((x, y) => x - y);
  console.log(`A = ${a.label}, B = ${b.label}: server CPU per request B / A: median ${ratios[ratios.length >> 1].toFixed(3)} (${ratios[0].toFixed(2)}-${ratios.at(-1).toFixed(2)})`);
} finally {
  await a.stop();
  await b.stop();
}
