// Object storage throughput: upload and download of 1 MiB and 20 MiB objects through the BUILT server on
// the file store and on an S3-compatible server (s3rver, in this process), with the server's peak RSS
// while each runs; beside them a bare Node server (pipeline(fs.createReadStream, response) and
// pipeline(request, fs.createWriteStream)) as the ceiling of the file store, and a bare S3 proxy (the same
// S3Client settings: PutObject with the request as its body, GetObject piped to the response) against its
// own s3rver as the ceiling of the S3 store. `npm run build` first.
//   node bench/objects.mjs [--seconds 5] [--concurrency 2] [--stores bare,file,bare-s3,s3] [--sizes 1,20]
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import S3rver from 's3rver';

const ROOT = resolve(import.meta.dirname, '..');
const BIN = join(ROOT, 'bin/gatehouse.js');
const MiB = 1024 * 1024;

const args = process.argv.slice(2);
const option = (name, fallback) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : fallback;
};
const SECONDS = Number(option('seconds', '5'));
const CONCURRENCY = Number(option('concurrency', '2'));
const STORES = option('stores', 'bare,file,bare-s3,s3').split(',');
const SIZES = option('sizes', '1,20').split(',').map((n) => Number(n) * MiB);

function freePort() {
  return new Promise((resolvePort, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolvePort(port));
    });
  });
}

const rssOf = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) * 1024;

/** Samples the process's RSS every 20 ms while `work` runs; returns the work's result and the peak. */
async function withPeakRss(pid, work) {
  let peak = rssOf(pid);
  const timer = setInterval(() => {
    try {
      peak = Math.max(peak, rssOf(pid));
    } catch {
      // process gone
    }
  }, 20);
  try {
    return { result: await work(), peak };
  } finally {
    clearInterval(timer);
  }
}

function send(agent, port, method, path, headers, body) {
  return new Promise((resolveSend, reject) => {
    const req = request({ host: '127.0.0.1', port, path, method, headers, agent }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => (res.statusCode < 300 ? resolveSend(bytes) : reject(new Error(`${method} ${path}: ${res.statusCode}`))));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Runs `CONCURRENCY` loops of `one()` for SECONDS; returns MiB/s and requests. */
async function measure(one, size) {
  const until = Date.now() + SECONDS * 1000;
  let count = 0;
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, lane) => {
      while (Date.now() < until) {
        await one(lane, count);
        count++;
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { mibps: (count * size) / MiB / seconds, requests: count };
}

function spawnServer(env, cwd) {
  const child = spawn(process.execPath, [BIN, 'serve'], { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.stderr.on('data', (c) => (output += c));
  return { child, output: () => output };
}

async function waitFor(url) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    if (Date.now() > deadline) throw new Error(`${url} did not answer`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

const cli = (env, cwd, cliArgs) =>
  new Promise((resolveRun, reject) =>
    execFile(process.execPath, [BIN, ...cliArgs, '--json'], { env: { ...process.env, ...env }, cwd }, (error, stdout, stderr) =>
      error ? reject(new Error(stderr || error.message)) : resolveRun(JSON.parse(stdout)),
    ),
  );

async function gatehouse(store) {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-objects-'));
  const port = await freePort();
  const env = { PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', RATE_LIMITS: 'off', DATABASE_URL: `sqlite:${join(dir, 'gh.db')}` };
  let s3;
  if (store === 's3') {
    const s3Port = await freePort();
    s3 = new S3rver({ address: '127.0.0.1', port: s3Port, directory: join(dir, 's3'), silent: true, configureBuckets: [{ name: 'bench' }] });
    await s3.run();
    Object.assign(env, {
      BLOB_STORE: `s3://bench?endpoint=http://127.0.0.1:${s3Port}&region=us-east-1&force_path_style=true`,
      AWS_ACCESS_KEY_ID: 'S3RVER',
      AWS_SECRET_ACCESS_KEY: 'S3RVER',
    });
  } else {
    env.BLOB_STORE = `file:${join(dir, 'blobs')}`;
  }
  const tenant = await cli(env, dir, ['tenant', 'create', '--name', 'bench']);
  const app = await cli(env, dir, ['app', 'create', '--tenant', tenant.tenant_id, '--name', 'bench', '--objects-limit-bytes', String(100 * 1024 * MiB)]);
  const server = spawnServer(env, dir);
  await waitFor(`http://127.0.0.1:${port}/v1/health`);
  const auth = { authorization: `Bearer ${app.secret_key}` };
  const created = await fetch(`http://127.0.0.1:${port}/v1/buckets`, { method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: '{"name":"bench"}' });
  const { bucket_id } = await created.json();
  return {
    pid: server.child.pid,
    port,
    upPath: (lane) => `/v1/buckets/${bucket_id}/objects/lane-${lane}`,
    downPath: (lane) => `/v1/buckets/${bucket_id}/objects/lane-${lane}`,
    headers: auth,
    stop: async () => {
      server.child.kill('SIGTERM');
      await new Promise((r) => server.child.once('exit', r));
      if (s3) await s3.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A ceiling process: `script` run by node, listening on `port` after `startMs`; `cleanup` after it is stopped. */
async function bareTarget(script, port, startMs, cleanup) {
  const child = spawn(process.execPath, ['-e', script], { stdio: 'ignore' });
  await new Promise((r) => setTimeout(r, startMs));
  return {
    pid: child.pid,
    port,
    upPath: (lane) => `/lane-${lane}`,
    downPath: (lane) => `/lane-${lane}`,
    headers: {},
    stop: async () => {
      child.kill('SIGTERM');
      await cleanup();
    },
  };
}

/** The ceiling: a bare node:http server that pipes files to and from disk, nothing else. */
async function bare() {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-bare-'));
  const port = await freePort();
  const script = `
    const { createServer } = require('node:http');
    const { createReadStream, createWriteStream, statSync } = require('node:fs');
    const { pipeline } = require('node:stream');
    const dir = ${JSON.stringify(dir)};
    createServer((req, res) => {
      const file = dir + '/' + req.url.replace(/[^a-z0-9-]/g, '');
      if (req.method === 'PUT') return pipeline(req, createWriteStream(file), (e) => res.end(e ? 'fail' : 'ok'));
      res.setHeader('content-length', statSync(file).size);
      pipeline(createReadStream(file), res, () => {});
    }).listen(${port}, '127.0.0.1');`;
  return bareTarget(script, port, 500, () => rmSync(dir, { recursive: true, force: true }));
}

/** The S3 store's ceiling: a bare node:http proxy to s3rver through @aws-sdk/client-s3, nothing else. */
async function bareS3() {
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-bench-bare-s3-'));
  const port = await freePort();
  const s3Port = await freePort();
  const s3 = new S3rver({ address: '127.0.0.1', port: s3Port, directory: join(dir, 's3'), silent: true, configureBuckets: [{ name: 'bench' }] });
  await s3.run();
  const script = `
    const { createServer } = require('node:http');
    const { pipeline } = require('node:stream');
    const { S3Client, PutObjectCommand, GetObjectCommand } = require(${JSON.stringify(join(ROOT, 'node_modules/@aws-sdk/client-s3'))});
    const client = new S3Client({
      endpoint: 'http://127.0.0.1:${s3Port}', region: 'us-east-1', forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
      requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED',
    });
    createServer(async (req, res) => {
      const Key = req.url.replace(/[^a-z0-9-]/g, '');
      try {
        if (req.method === 'PUT') {
          await client.send(new PutObjectCommand({ Bucket: 'bench', Key, Body: req, ContentLength: Number(req.headers['content-length']) }));
          return res.end('ok');
        }
        const got = await client.send(new GetObjectCommand({ Bucket: 'bench', Key }));
        res.setHeader('content-length', got.ContentLength);
        pipeline(got.Body, res, () => {});
      } catch (e) { res.statusCode = 500; res.end(String(e)); }
    }).listen(${port}, '127.0.0.1');`;
  return bareTarget(script, port, 1500, async () => {
    await s3.close();
    rmSync(dir, { recursive: true, force: true });
  });
}

const rows = [];
for (const store of STORES) {
  const target = store === 'bare' ? await bare() : store === 'bare-s3' ? await bareS3() : await gatehouse(store);
  const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  try {
    for (const size of SIZES) {
      const data = randomBytes(size);
      const headers = { ...target.headers, 'content-type': 'application/octet-stream', 'content-length': String(size) };
      const idle = rssOf(target.pid);
      const up = await withPeakRss(target.pid, () => measure((lane) => send(agent, target.port, 'PUT', target.upPath(lane), headers, data), size));
      const down = await withPeakRss(target.pid, () => measure((lane) => send(agent, target.port, 'GET', target.downPath(lane), target.headers), size));
      rows.push({ store, size, idle, up, down });
      console.error(`${store} ${size / MiB} MiB: up ${up.result.mibps.toFixed(1)} MiB/s, down ${down.result.mibps.toFixed(1)} MiB/s`);
    }
  } finally {
    agent.destroy();
    await target.stop();
  }
}

const mb = (bytes) => (bytes / MiB).toFixed(0);
console.log(`| store | object | upload MiB/s (requests) | peak RSS upload | download MiB/s (requests) | peak RSS download | idle RSS |`);
console.log(`| --- | --- | --- | --- | --- | --- | --- |`);
for (const r of rows) {
  console.log(
    `| ${r.store} | ${r.size / MiB} MiB | ${r.up.result.mibps.toFixed(1)} (${r.up.result.requests}) | ${mb(r.up.peak)} MiB | ${r.down.result.mibps.toFixed(1)} (${r.down.result.requests}) | ${mb(r.down.peak)} MiB | ${mb(r.idle)} MiB |`,
  );
}
// Each store against its own ceiling: the file store against the bare file server, S3 against the bare S3 proxy.
const CEILING_OF = { file: 'bare', s3: 'bare-s3' };
const rate = (store, size, dir) => rows.find((r) => r.store === store && r.size === size)?.[dir].result.mibps;
for (const r of rows.filter((r) => CEILING_OF[r.store])) {
  for (const dir of ['down', 'up']) {
    const ceiling = rate(CEILING_OF[r.store], r.size, dir);
    if (ceiling) console.log(`${r.store} ${r.size / MiB} MiB ${dir === 'down' ? 'download' : 'upload'}: ${((100 * r[dir].result.mibps) / ceiling).toFixed(0)} % of ${CEILING_OF[r.store]}`);
  }
}
writeFileSync(join(tmpdir(), 'gatehouse-bench-objects.json'), JSON.stringify(rows, null, 2));
