// Paired comparison: two servers loaded AT THE SAME TIME, one autocannon each, for several rounds; each
// round compares their server CPU per request (user + system, every thread, from /proc). On a shared VM
// whose speed wanders from second to second, a sequential A/B moves more between rounds than the
// difference it looks for; two servers measured side by side see the same machine.
//
//   node bench/paired.mjs [--a DIR|hello] [--b DIR|hello] [--path /v1/health] [--auth none|me|secret|signin|refresh] [--rounds 10] [--seconds 3] [--connections 16] [--db sqlite|postgres] [--a-idle 0] [--webhooks 0]
//
// --auth signin: POST /v1/signins with the fixture's password; --auth refresh: POST /v1/tokens/session, each
// connection refreshing the token its last answer gave (a chain per connection, started before each round from
// POST /v1/sign_in_tokens, unmeasured). --webhooks N: server B gets N webhook endpoints subscribed to every
// type (event_types ["*"]) at a receiver in this process answering 204; A none (both run WEBHOOK_ALLOW_PRIVATE).
// --deliveries held: B's database gets a trigger that leases each new delivery row to nobody until 9999, so B's
// worker never sends it: B's CPU is the request path alone (the event and its delivery rows written), not the
// sending (default `sent`: B's CPU includes delivering them, as a deployment pays).
//
// --a-idle N: A idles N seconds after its start before B starts and the load begins (a server that has
// idled long enough for V8's memory reducer against one loaded straight after its start).
// DIR is the root of a built checkout (its bench/lib/server.mjs and dist/ are used; default: this one);
// `hello` is the bare Fastify ceiling server. Prints each round and the median of B / A.
import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createServer } from 'node:http';
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
    webhooks: { type: 'string', default: '0' },
    deliveries: { type: 'string', default: 'sent' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

// The receiver of --webhooks: 204 to every POST, counting them.
const receipts = { count: 0 };
const receiver = createServer((request, response) => {
  request.resume();
  request.on('end', () => {
    receipts.count++;
    response.writeHead(204).end();
  });
});
const receiverPort = Number(values.webhooks) > 0 ? await new Promise((ready) => receiver.listen(0, '127.0.0.1', () => ready(receiver.address().port))) : 0;
const json = { 'content-type': 'application/json' };
/** Until the receiver has had nothing for 300 ms (at most 5 s). */
async function settled() {
  for (let seen = -1, waited = 0; seen !== receipts.count && waited < 5000; waited += 300) {
    seen = receipts.count;
    await new Promise((r) => setTimeout(r, 300));
  }
}

/** --deliveries held: a trigger leases every new delivery row until 9999 (to no node), so none is sent. */
async function holdDeliveries(databaseUrl) {
  const until = '9999-12-31T00:00:00.000Z';
  if (databaseUrl.startsWith('sqlite:')) {
    const { default: Database } = await import('better-sqlite3');
    const db = new Database(databaseUrl.slice('sqlite:'.length));
    db.exec(`CREATE TRIGGER bench_hold AFTER INSERT ON webhook_deliveries BEGIN UPDATE webhook_deliveries SET lease_holder = 'bench-hold', lease_until = '${until}' WHERE id = NEW.id; END`);
    db.close();
    return;
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  await client.query(`CREATE FUNCTION bench_hold() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.lease_holder := 'bench-hold'; NEW.lease_until := '${until}'; RETURN NEW; END $$`);
  await client.query('CREATE TRIGGER bench_hold BEFORE INSERT ON webhook_deliveries FOR EACH ROW EXECUTE FUNCTION bench_hold()');
  await client.end();
}

async function start(which, endpoints = 0) {
  if (which === 'hello') {
    const port = await freePort();
    const child = spawn(process.execPath, [resolve(ROOT, 'bench/lib/ceiling-server.mjs'), String(port)], { stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise((ready) => child.stdout.on('data', (data) => String(data).includes('listening') && ready()));
    return { label: 'bare Fastify', url: `http://127.0.0.1:${port}/hello`, headers: {}, pid: child.pid, stop: async () => void child.kill() };
  }
  const { startServer } = await import(resolve(which, 'bench/lib/server.mjs'));
  const env = receiverPort ? { WEBHOOK_ALLOW_PRIVATE: 'true' } : {};
  const server = await startServer({ db: values.db, pgAdminUrl: values['pg-url'], logLevel: 'info', env });
  // --auth me: GET /v1/me with a publishable key and a session; --auth secret: the path with the secret key.
  const headers = {};
  const target = { label: endpoints ? `${which} with ${endpoints} webhook endpoints` : which, url: server.url + values.path, headers, pid: server.pid, stop: server.stop };
  if (values.auth !== 'none') {
    const { prepareFixtures, call } = await import(resolve(which, 'bench/lib/fixtures.mjs'));
    const fx = await prepareFixtures(server);
    for (let i = 0; i < endpoints; i++) {
      await call(server, 'POST', '/v1/webhooks', { body: { url: `http://127.0.0.1:${receiverPort}/hook/${i}` }, headers: { authorization: `Bearer ${fx.secretKey}` }, expect: 201 });
    }
    if (endpoints && values.deliveries === 'held') await holdDeliveries(server.databaseUrl);
    if (values.auth === 'me') Object.assign(headers, { 'x-publishable-key': fx.publishableKey, authorization: `Bearer ${fx.accessToken}` });
    else if (values.auth === 'signin') {
      Object.assign(target, { url: `${server.url}/v1/signins`, method: 'POST', body: JSON.stringify({ email: fx.email, password: fx.password }) });
      Object.assign(headers, json, { 'x-publishable-key': fx.publishableKey });
    } else if (values.auth === 'refresh') {
      Object.assign(headers, json, { 'x-publishable-key': fx.publishableKey });
      target.url = `${server.url}/v1/tokens/session`;
      // One fresh token per connection before each load (not measured: the CPU reading starts after).
      target.prepare = async () => {
        const mint = () => call(server, 'POST', '/v1/sign_in_tokens', { body: { user_id: fx.userId }, headers: { authorization: `Bearer ${fx.secretKey}` } });
        const tokens = (await Promise.all(Array.from({ length: connections }, mint))).map((t) => t.refresh_token);
        await settled(); // B's deliveries of those sign-ins' session.created, before its CPU is read
        return [
          {
            method: 'POST',
            // A pool, not autocannon's context (reset each time the one-request sequence starts again): each request
            // takes a token, each answer gives its successor back; at most `connections` requests are out at once.
            setupRequest: (request) => ({ ...request, body: JSON.stringify({ refresh_token: tokens.pop() ?? 'none-left' }) }),
            onResponse: (status, body) => {
              if (status === 200) tokens.push(JSON.parse(body).refresh_token);
            },
          },
        ];
      };
    } else headers.authorization = `Bearer ${fx.secretKey}`;
  } else if (endpoints) throw new Error('--webhooks needs --auth (the endpoints are made with the fixtures\' secret key)');
  return target;
}

async function load(target, seconds) {
  const requests = await target.prepare?.();
  const before = cpuOf(target.pid);
  const result = await autocannon({ url: target.url, headers: target.headers, method: target.method ?? 'GET', body: target.body, requests, connections, duration: seconds });
  if (result.non2xx) throw new Error(`${target.label}: ${result.non2xx} answers were not 2xx`);
  target.requests = (target.requests ?? 0) + result.requests.total;
  // A round where a server answered almost nothing (sign-in on a loaded machine) says nothing: NaN, left out.
  if (result.requests.total < 10) return NaN;
  return ((cpuOf(target.pid) - before) * 1e6) / result.requests.total;
}

const connections = Number(values.connections);
const a = await start(values.a);
await new Promise((idled) => setTimeout(idled, Number(values['a-idle']) * 1000));
const b = await start(values.b, Number(values.webhooks));
try {
  await Promise.all([load(a, 2), load(b, 2)]); // warm-up
  const ratios = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const [costA, costB] = await Promise.all([load(a, Number(values.seconds)), load(b, Number(values.seconds))]);
    if (Number.isFinite(costB / costA)) ratios.push(costB / costA);
    console.log(`round ${round + 1}: A ${costA.toFixed(1)} µs, B ${costB.toFixed(1)} µs a request, B / A ${(costB / costA).toFixed(3)}`);
  }
  if (ratios.length === 0) throw new Error('no round had 10 requests on both servers: more --seconds');
  ratios.sort((x, y) => x - y);
  console.log(`A = ${a.label}, B = ${b.label}: server CPU per request B / A: median of ${ratios.length} rounds ${ratios[ratios.length >> 1].toFixed(3)} (${ratios[0].toFixed(2)}-${ratios.at(-1).toFixed(2)})`);
  console.log(`requests (warm-up included): A ${a.requests}, B ${b.requests}`);
  if (receiverPort) console.log(`webhook receipts: ${receipts.count}${values.deliveries === 'held' ? ' (deliveries held: only the endpoints\' own webhook.created events, sent before the trigger)' : " (B's deliveries, their sending included in B's CPU)"}`);
} finally {
  await a.stop();
  await b.stop();
  receiver.close();
}
