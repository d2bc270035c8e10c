#!/usr/bin/env node
// Importing users (docs/import.md; bench/README.md, "Importing users"). A benchmark, not a test:
// 1. --users (100,000) users with bcrypt hashes through POST /v1/users/import, 1,000 a call, one call after
//    another: the wall time (nothing is hashed at import; the budget is 60 s);
// 2. the first password sign-in of an imported bcrypt user (bcrypt's check plus the argon2id hash that replaces
//    it, in the write that opens the session) against the next one (argon2id's check alone), medians of --signins;
// 3. `gatehouse user import` reading NDJSON files of --file-users users (default 10,000, 100,000 and 1,000,000):
//    each imported, and the CLI process's peak RSS, polled from /proc every 50 ms.
//
//   npm run build && node bench/import.mjs [--db sqlite|postgres] [--users 100000] [--file-users 10000,100000,1000000]
import { spawn } from 'node:child_process';
import { createWriteStream, rmSync } from 'node:fs';
import { once } from 'node:events';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { hash as bcryptHash, verify as bcryptVerify } from '@node-rs/bcrypt';
import { hashPassword, verifyPassword } from '../dist/src/crypto/passwords.js';
import { cpuOf, createDatabase, ROOT, rssOf, startServer } from './lib/server.mjs';

const { values: opts } = parseArgs({
  options: {
    db: { type: 'string', default: 'sqlite' },
    users: { type: 'string', default: '100000' },
    signins: { type: 'string', default: '7' },
    'file-users': { type: 'string', default: '10000,100000,1000000' },
    'sample-seconds': { type: 'string', default: '10' },
    'pg-url': { type: 'string', default: process.env.BENCH_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
  },
});

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const database = await createDatabase({ db: opts.db, pgAdminUrl: opts['pg-url'] });
const server = await startServer({ db: opts.db, pgAdminUrl: opts['pg-url'], database });
try {
  const { tenant_id } = await server.cli(['tenant', 'create', '--name', 'Import']);
  const app = await server.cli(['app', 'create', '--tenant', tenant_id, '--name', 'Import']);
  const headers = { authorization: `Bearer ${app.secret_key}`, 'content-type': 'application/json' };
  const PASSWORD = 'imported password';
  // One real bcrypt hash (cost 10, a common default) for every user: the import checks its form, never hashes.
  const hash = await bcryptHash(PASSWORD, 10);
  const total = Number(opts.users);
  if (total === 0) opts.signins = '0';
  const run = Date.now().toString(36);
  const started = performance.now();
  const cpuBefore = server.cpu();
  for (let from = 0; from < total; from += 1000) {
    const users = Array.from({ length: Math.min(1000, total - from) }, (_, i) => ({ email: `u${from + i}.${run}@example.com`, external_id: `ext-${from + i}`, password_hash: { algorithm: 'bcrypt', hash } }));
    const res = await fetch(`${server.url}/v1/users/import`, { method: 'POST', headers, body: JSON.stringify({ users }) });
    const body = await res.json();
    if (!res.ok || body.created !== users.length) throw new Error(`import at ${from}: ${res.status} ${JSON.stringify(body).slice(0, 300)}`);
  }
  const seconds = (performance.now() - started) / 1000;
  // CPU seconds too: on a shared, loaded machine the wall time is mostly waiting for a core.
  console.log(`import ${opts.db}: ${total} bcrypt users in ${seconds.toFixed(1)} s (${Math.round(total / seconds)} users/s), server CPU ${(server.cpu() - cpuBefore).toFixed(1)} s, peak RSS ${server.rss()?.peak.toFixed(1)} MB`);

  const signIn = async (email) => {
    const t = performance.now();
    const res = await fetch(`${server.url}/v1/signins`, { method: 'POST', headers: { 'x-publishable-key': app.publishable_key, 'content-type': 'application/json' }, body: JSON.stringify({ email, password: PASSWORD }) });
    if (res.status !== 200) throw new Error(`sign-in ${res.status}`);
    return performance.now() - t;
  };
  const firsts = [];
  const seconds2 = [];
  for (let i = 0; i < Number(opts.signins); i++) {
    const email = `u${i * 997}.${run}@example.com`;
    firsts.push(await signIn(email));
    seconds2.push(await signIn(email));
  }
  // The parts, bare, in this process right after (same machine state): bcrypt's check at cost 10, argon2id's hash
  // at the server's parameters, argon2id's check.
  const bare = { bcrypt: [], hash: [], verify: [] };
  for (let i = 0; i < Number(opts.signins); i++) {
    let t = performance.now();
    if (!(await bcryptVerify(PASSWORD, hash))) throw new Error('bcrypt');
    bare.bcrypt.push(performance.now() - t);
    t = performance.now();
    const argon = await hashPassword(PASSWORD);
    bare.hash.push(performance.now() - t);
    t = performance.now();
    await verifyPassword(argon, PASSWORD);
    bare.verify.push(performance.now() - t);
  }
  if (firsts.length > 0) {
    const predicted = median(seconds2) + median(bare.bcrypt) + median(bare.hash) - median(bare.verify);
    console.log(`bare ${opts.db}: bcrypt cost-10 check ${median(bare.bcrypt).toFixed(0)} ms, argon2id hash ${median(bare.hash).toFixed(0)} ms, argon2id check ${median(bare.verify).toFixed(0)} ms: first sign-in predicted (next + bcrypt + hash - check) ${predicted.toFixed(0)} ms, measured ${median(firsts).toFixed(0)} ms (ratio ${(median(firsts) / predicted).toFixed(2)})`);
  }
  if (firsts.length > 0) console.log(`sign-in ${opts.db}: first (bcrypt cost 10 + argon2id re-hash) median ${median(firsts).toFixed(0)} ms, next (argon2id) median ${median(seconds2).toFixed(0)} ms, ${firsts.length} users`);

  for (const count of opts['file-users'].split(',').map(Number)) {
    const path = join(database.dir, `users-${count}.ndjson`);
    const out = createWriteStream(path);
    for (let i = 0; i < count; i++) {
      if (!out.write(`${JSON.stringify({ email: `f${i}.${count}.${run}@example.com`, email_verified: true, external_id: `f-${count}-${i}`, password_hash: { algorithm: 'bcrypt', hash } })}\n`)) await once(out, 'drain');
    }
    out.end();
    await once(out, 'finish');
    const args = [join(ROOT, 'bin/gatehouse.js'), 'user', 'import', app.app_id, path, '--format', 'gatehouse', '--on-conflict', 'skip', '--json'];
    const env = { ...process.env, ...database.env };
    const t = performance.now();
    const child = spawn(process.execPath, args, { cwd: database.dir, env, stdio: ['ignore', 'pipe', 'inherit'] });
    let peak = 0;
    let cpu = 0;
    // RSS every 50 ms for the peak; one sample every --sample-seconds kept, to show it flat through the file.
    const samples = [];
    let lastSample = 0;
    const poll = setInterval(() => {
      const rss = rssOf(child.pid);
      if (rss && Number.isFinite(rss.peak)) peak = Math.max(peak, rss.peak);
      if (rss && performance.now() - lastSample >= Number(opts['sample-seconds']) * 1000) {
        lastSample = performance.now();
        samples.push(rss.rss);
      }
      cpu = cpuOf(child.pid) ?? cpu;
    }, 50);
    let stdout = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    const [code] = await once(child, 'exit');
    clearInterval(poll);
    rmSync(path);
    const totals = JSON.parse(stdout || '{}');
    console.log(`cli ${opts.db}: ${count} users from an NDJSON file (${code === 0 ? 'ok' : `exit ${code}`}, created ${totals.created}) in ${((performance.now() - t) / 1000).toFixed(1)} s (CLI CPU ${cpu.toFixed(1)} s), peak RSS ${peak.toFixed(1)} MB`);
    const half = samples.slice(Math.floor(samples.length / 2));
    console.log(`cli ${opts.db}: ${count} users: RSS every ${opts['sample-seconds']} s (MB): ${samples.map((mb) => mb.toFixed(0)).join(' ')}; second half ${Math.min(...half).toFixed(1)}-${Math.max(...half).toFixed(1)}`);
  }
} finally {
  await server.stop();
}
