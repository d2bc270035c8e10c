// `npm test`: runs every test file against SQLite, then against PostgreSQL when it is reachable
// (under CI=true a missing PostgreSQL or Redis is a failure, not a skip). Redis-backed limits run
// whenever Redis answers. Prints one closing line: "N passed, N failed".
import { spawnSync } from 'node:child_process';
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
let failedRun = false;

/** The first line of a failure, so the closing summary names what failed (CI keeps only the tail). */
function firstLine(messages) {
  const text = (messages ?? []).find((message) => typeof message === 'string' && message.trim() !== '') ?? '';
  return text.trim().split('\n')[0].slice(0, 300);
}

function runVitest(db, env) {
  const report = join(tmpdir(), `gatehouse-vitest-${db}-${process.pid}.json`);
  console.log(`\n=== tests on ${db}${env.TEST_REDIS_URL ? ' (rate limits in Redis)' : ''} ===`);
  const result = spawnSync(
    process.execPath,
    ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`, ...extraArgs],
    { stdio: 'inherit', env: { ...process.env, ...env, TEST_DB: db } },
  );
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    totals.passed += json.numPassedTests;
    totals.failed += json.numFailedTests;
    totals.skipped += json.numPendingTests + (json.numTodoTests ?? 0);
    if (json.numFailedTestSuites > 0 && json.numFailedTests === 0) totals.failed += json.numFailedTestSuites;
    for (const file of json.testResults ?? []) {
      const name = relative(process.cwd(), file.name);
      const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
      for (const test of failed) failures.push(`${db}: ${name} > ${test.fullName}\n    ${firstLine(test.failureMessages)}`);
      if (failed.length === 0 && file.status === 'failed') failures.push(`${db}: ${name}\n    ${firstLine([file.message])}`);
    }
    rmSync(report, { force: true });
  } catch {
    totals.failed += 1;
  }
  if (result.status !== 0) failedRun = true;
}

const redisUp = await reachable(redisUrl.hostname, redisUrl.port || 6379);
if (!redisUp && ci) {
  console.error(`Redis is not reachable at ${redisUrl.host}; CI requires it.`);
  process.exit(1);
}
const redisEnv = redisUp ? { TEST_REDIS_URL: redisUrl.toString() } : {};

runVitest('sqlite', {});
const pgUp = await reachable(pgUrl.hostname, pgUrl.port || 5432);
if (pgUp) {
  runVitest('postgres', { TEST_PG_URL: pgUrl.toString(), ...redisEnv });
} else if (ci) {
  console.error(`PostgreSQL is not reachable at ${pgUrl.host}; CI requires it.`);
  failedRun = true;
  totals.failed += 1;
} else {
  console.warn(`PostgreSQL is not reachable at ${pgUrl.host}: skipped the PostgreSQL run.`);
}

if (failures.length > 0) console.log(`\nfailed:\n${failures.map((line) => `  ${line}`).join('\n')}`);
console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
process.exit(failedRun || totals.failed > 0 ? 1 : 0);
