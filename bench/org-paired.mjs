#!/usr/bin/env node
// Issue 52: the cost of an active organisation. Two servers of this build loaded AT THE SAME TIME (as
// bench/paired.mjs), each with the same fixture but for one thing: on A the session has no active
// organisation and the table's rows are the user's own; on B the session's active organisation owns them.
// Each round compares their server CPU per request (user + system, every thread, from /proc).
//
//   npm run build && node bench/org-paired.mjs [--route me|rows] [--rounds 10] [--seconds 3] [--connections 16] [--db sqlite|postgres] [--rows 100]
//
// me: GET /v1/me (B answers `organization`, read in the same statement); rows: POST /v1/tables/{id}/rows/query
// {limit: 50} with Publishable + Session (A: the user's rows; B: the organisation's, the membership checked in
// the statement).
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { call, prepareFixtures } from './lib/fixtures.mjs';
import { cpuOf, startServer } from './lib/server.mjs';

const { values } = parseArgs({
  options: {
    route: { type: 'string', default: 'me' },
    rounds: { type: 'string', default: '10' },
    seconds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '16' },
    db: { type: 'string', default: 'sqlite' },
    rows: { type: 'string', default: '100' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

async function start(withOrganization) {
  const server = await startServer({ db: values.db, pgAdminUrl: values['pg-url'], logLevel: 'info' });
  const fx = await prepareFixtures(server);
  const secret = { authorization: `Bearer ${fx.secretKey}` };
  let accessToken = fx.accessToken;
  let organizationId;
  if (withOrganization) {
    const organization = await call(server, 'POST', '/v1/organizations', { headers: secret, body: { name: 'Acme', owner_user_id: fx.userId }, expect: 201 });
    organizationId = organization.id ?? organization.organization_id;
    const active = await call(server, 'POST', '/v1/sessions/active_organization', {
      headers: { 'x-publishable-key': fx.publishableKey, authorization: `Bearer ${accessToken}` },
      body: { organization_id: organizationId },
    });
    accessToken = active.access_token;
  }
  const session = { 'x-publishable-key': fx.publishableKey, authorization: `Bearer ${accessToken}` };
  const me = await call(server, 'GET', '/v1/me', { headers: session });
  if (withOrganization !== (me.organization !== null && me.organization !== undefined)) throw new Error(`GET /v1/me: organization ${JSON.stringify(me.organization)}`);
  let path = '/v1/me';
  let method = 'GET';
  let body;
  if (values.route === 'rows') {
    const table = await call(server, 'POST', '/v1/tables', { headers: secret, body: { name: 'notes', columns: [{ name: 'title', type: 'text' }, { name: 'rank', type: 'int' }] }, expect: 201 });
    const tableId = table.table_id ?? table.id;
    for (let i = 0; i < Number(values.rows); i++) {
      await call(server, 'POST', `/v1/tables/${tableId}/rows`, { headers: session, body: { data: { title: `note ${i}`, rank: i }, ...(organizationId ? { organization_id: organizationId } : {}) }, expect: 201 });
    }
    path = `/v1/tables/${tableId}/rows/query`;
    method = 'POST';
    body = JSON.stringify({ limit: 50 });
    const page = await call(server, 'POST', path, { headers: session, body: { limit: 50 } });
    const rows = page.rows ?? page.data ?? [];
    if (rows.length !== Math.min(50, Number(values.rows))) throw new Error(`the query answered ${rows.length} rows`);
    if (withOrganization && rows.some((row) => row.organization_id !== organizationId)) throw new Error('a row not of the organisation');
  }
  return { label: withOrganization ? 'active organisation' : 'no organisation', server, url: server.url + path, method, body, headers: { ...session, ...(body ? { 'content-type': 'application/json' } : {}) } };
}

const connections = Number(values.connections);
async function load(target, seconds) {
  const before = cpuOf(target.server.pid);
  const result = await autocannon({ url: target.url, method: target.method, body: target.body, headers: target.headers, connections, duration: seconds });
  if (result.non2xx) throw new Error(`${target.label}: ${result.non2xx} answers were not 2xx`);
  return { cost: ((cpuOf(target.server.pid) - before) * 1e6) / result.requests.total, rate: result.requests.total / seconds };
}

const a = await start(false);
const b = await start(true);
try {
  await Promise.all([load(a, 2), load(b, 2)]); // warm-up
  const ratios = [];
  for (let round = 0; round < Number(values.rounds); round++) {
    const [ra, rb] = await Promise.all([load(a, Number(values.seconds)), load(b, Number(values.seconds))]);
    ratios.push(rb.cost / ra.cost);
    console.log(`round ${round + 1}: A ${ra.cost.toFixed(1)} µs (${ra.rate.toFixed(0)}/s), B ${rb.cost.toFixed(1)} µs (${rb.rate.toFixed(0)}/s) a request, B / A ${(rb.cost / ra.cost).toFixed(3)}`);
  }
  ratios.sort((x, y) => x - y);
  console.log(`${values.db} ${values.route}: A = ${a.label}, B = ${b.label}: server CPU per request B / A: median ${ratios[ratios.length >> 1].toFixed(3)} (${ratios[0].toFixed(2)}-${ratios.at(-1).toFixed(2)})`);
} finally {
  await a.server.stop();
  await b.server.stop();
}
