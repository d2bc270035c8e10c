// `npm test`: runs every test file against SQLite, then against PostgreSQL when it is reachable
// (under CI=true a missing PostgreSQL or Redis is a failure, not a skip). Redis-backed limits run
// whenever Redis answers. Prints one closing line: "N passed, N failed".
import { spawn } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const ci = process.env.CI === 'true' || process.env.CI === '1';
const pgUrl = new URL(process.env.TEST_PG_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres');
const redisUrl = new URL(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379');
const extraArgs = process.argv.slice(2);

function reachable(host, port) {
  return new Promise((resolve) => {
    const socket = createConnection({ host, port: Number(port) });
    socket.setTimeout(2000);
    socket.once('connect', () => { socket.destroy(); resolve(true); });
    socket.once('error', () => resolve(false));
    socket.once('timeout', () => { socket.destroy(); resolve(false); });
  });
}

const totals = { passed: 0, failed: 0, skipped: 0 };
const failures = [];
const timings = [];
let failedRun = false;

/** The first line of a failure, so the closing summary names what failed (CI keeps only the tail). */
function firstLine(messages) {
  const text = (messages ?? []).find((message) => typeof message === 'string' && message.trim() !== '') ?? '';
  return text.trim().split('\n')[0].slice(0, 300);
}

/**
 * One vitest run over every file against `db`. Its output is kept and printed whole when it ends, so two
 * runs at once never interleave their lines; the JSON report feeds the totals and the closing summary.
 */
function runVitest(db, env, workers) {
  const report = join(tmpdir(), `gatehouse-vitest-${db}-${process.pid}.json`);
  const title = `=== tests on ${db}${env.TEST_REDIS_URL ? ' (rate limits in Redis)' : ''} ===`;
  const args = ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`];
  if (workers) args.push(`--maxWorkers=${workers}`);
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [...args, ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env, TEST_DB: db } });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (status) => {
      process.stdout.write(`\n${title}\n`);
      process.stdout.write(Buffer.concat(output));
      collect(db, report, status, (Date.now() - started) / 1000);
      resolve();
    });
  });
}

function collect(db, report, status, seconds) {
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    totals.passed += json.numPassedTests;
    totals.failed += json.numFailedTests;
    totals.skipped += json.numPendingTests + (json.numTodoTests ?? 0);
    if (json.numFailedTestSuites > 0 && json.numFailedTests === 0) totals.failed += json.numFailedTestSuites;
    const files = [];
    for (const file of json.testResults ?? []) {
      const name = relative(process.cwd(), file.name);
      files.push({ name, seconds: ((file.endTime ?? 0) - (file.startTime ?? 0)) / 1000 });
      const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
      for (const test of failed) failures.push(`${db}: ${name} > ${test.fullName}\n    ${firstLine(test.failureMessages)}`);
      if (failed.length === 0 && file.status === 'failed') failures.push(`${db}: ${name}\n    ${firstLine([file.message])}`);
    }
    // Where the time goes: the slowest files of the run, to keep the suite's wall time in view.
    const slowest = files.sort((a, b) => b.seconds - a.seconds).slice(0, 8);
    timings.push(`${db}: ${seconds.toFixed(0)} s; slowest files: ${slowest.map((f) => `${f.name} ${f.seconds.toFixed(0)} s`).join(', ')}`);
    rmSync(report, { force: true });
  } catch {
    totals.failed += 1;
    failures.push(`${db}: no test report (vitest exited ${status})`);
  }
  if (status !== 0) failedRun = true;
}

const redisUp = await reachable(redisUrl.hostname, redisUrl.port || 6379);
if (!redisUp && ci) {
  console.error(`Redis is not reachable at ${redisUrl.host}; CI requires it.`);
  process.exit(1);
}
const redisEnv = redisUp ? { TEST_REDIS_URL: redisUrl.toString() } : {};

// GATEHOUSE_TEST_DATABASES=sqlite runs the SQLite pass alone (CI's second Node version on a slow machine:
// .ci/run says when); the default is both.
const databases = (process.env.GATEHOUSE_TEST_DATABASES ?? 'sqlite,postgres').split(',').map((name) => name.trim());
if (databases.includes('postgres') === false) {
  console.log('GATEHOUSE_TEST_DATABASES: the SQLite pass only');
  await runVitest('sqlite', {}, 3);
  finish();
}

const pgUp = await reachable(pgUrl.hostname, pgUrl.port || 5432);
const pgEnv = { TEST_PG_URL: pgUrl.toString(), ...redisEnv };
if (!pgUp && ci) {
  console.error(`PostgreSQL is not reachable at ${pgUrl.host}; CI requires it.`);
  failedRun = true;
  totals.failed += 1;
} else if (!pgUp) {
  console.warn(`PostgreSQL is not reachable at ${pgUrl.host}: skipped the PostgreSQL run.`);
}
// The two databases' runs are independent (each test file makes its own servers, databases and
// directories): they run at the same time, two files each, unless GATEHOUSE_TEST_SERIAL=1 asks for one
// after the other (three files at a time, as vitest.config.ts says).
if (pgUp && process.env.GATEHOUSE_TEST_SERIAL !== '1') {
  console.log('running the SQLite and PostgreSQL passes at once; the output of each follows when it ends');
  await Promise.all([runVitest('sqlite', {}, 2), runVitest('postgres', pgEnv, 2)]);
} else {
  await runVitest('sqlite', {});
  if (pgUp) await runVitest('postgres', pgEnv);
}

finish();

function finish() {
  if (timings.length > 0) console.log(`\ntimes:\n${timings.map((line) => `  ${line}`).join('\n')}`);
  if (failures.length > 0) console.log(`\nfailed:\n${failures.map((line) => `  ${line}`).join('\n')}`);
  console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(failedRun || totals.failed > 0 ? 1 : 0);
}
