// `npm test`: the main pass on SQLite and on PostgreSQL at once (PostgreSQL when it is reachable; under
// CI=true a missing PostgreSQL or Redis is a failure, not a skip), with the fault project beside them.
// Which files run where: test/suite.mjs (docs/testing.md). Redis-backed limits run whenever Redis answers.
// Writes each file's wall and CPU time to test-results/times-<pass>.json and prints, per pass, its time,
// its CPU and its ten slowest files; then one closing line: "N passed, N failed".
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import { availableParallelism, tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';

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

/** The machine's CPU counters (Linux /proc/stat, in ticks): busy and all, over every core; undefined elsewhere. */
function machineTicks() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const idle = fields[3] + (fields[4] ?? 0);
    const all = fields.reduce((sum, value) => sum + value, 0);
    return { busy: all - idle, all };
  } catch {
    return undefined;
  }
}
const machineAtStart = machineTicks();

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
function runVitest(db, env, workers, set = 'main') {
  const pass = set === 'main' || set === 'any' ? db : `${set}-${db}`;
  const report = join(tmpdir(), `gatehouse-vitest-${pass}-${process.pid}.json`);
  const timesDir = mkdtempSync(join(tmpdir(), 'gatehouse-times-'));
  const title = `=== ${set === 'main' || set === 'any' ? 'tests' : `${set} tests`} on ${db}${env.TEST_REDIS_URL ? ' (rate limits in Redis)' : ''} ===`;
  const args = ['node_modules/vitest/vitest.mjs', 'run', '--reporter=default', '--reporter=json', `--outputFile.json=${report}`];
  if (workers) args.push(`--maxWorkers=${workers}`);
  // A named file may be one this database does not run (test/suite.mjs): then this pass has nothing to do.
  if (extraArgs.length > 0) args.push('--passWithNoTests');
  const started = Date.now();
  return new Promise((resolvePass) => {
    const passEnv = { ...process.env, ...env, TEST_DB: db, GATEHOUSE_TEST_SET: set, GATEHOUSE_TEST_TIMES_DIR: timesDir };
    const child = spawn(process.execPath, [...args, ...extraArgs], { stdio: ['ignore', 'pipe', 'pipe'], env: passEnv });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (status) => {
      process.stdout.write(`\n${title}\n`);
      process.stdout.write(Buffer.concat(output));
      collect(pass, report, status, (Date.now() - started) / 1000, timesDir, started);
      resolvePass();
    });
  });
}

/** CPU seconds per file, as test/helpers/file-times.ts recorded them in the workers. */
function cpuTimes(timesDir) {
  const cpu = new Map();
  for (const name of readdirSync(timesDir)) {
    for (const line of readFileSync(join(timesDir, name), 'utf8').split('\n')) {
      if (line.trim() === '') continue;
      const entry = JSON.parse(line);
      cpu.set(entry.file, entry);
    }
  }
  rmSync(timesDir, { recursive: true, force: true });
  return cpu;
}

function collect(db, report, status, seconds, timesDir, started) {
  const cpu = cpuTimes(timesDir);
  try {
    const json = JSON.parse(readFileSync(report, 'utf8'));
    totals.passed += json.numPassedTests;
    totals.failed += json.numFailedTests;
    totals.skipped += json.numPendingTests + (json.numTodoTests ?? 0);
    if (json.numFailedTestSuites > 0 && json.numFailedTests === 0) totals.failed += json.numFailedTestSuites;
    const files = [];
    for (const file of json.testResults ?? []) {
      const name = relative(process.cwd(), file.name);
      const used = cpu.get(name);
      files.push({
        name,
        // From its import to its last hook (file-times.ts), else vitest's own account.
        seconds: round(used?.wallSeconds ?? ((file.endTime ?? 0) - (file.startTime ?? 0)) / 1000),
        // The worker's own CPU and its reaped children's (servers, CLI calls); null when not recorded.
        cpuSeconds: used ? round(used.cpuSelf + used.cpuChildren) : null,
        cpuWorkerSeconds: used ? round(used.cpuSelf) : null,
        cpuChildrenSeconds: used ? round(used.cpuChildren) : null,
        // When it started, in seconds from the pass's start: the pass's timeline (which files ran at the end).
        startedAt: file.startTime ? round((file.startTime - started) / 1000) : null,
        tests: (file.assertionResults ?? []).length,
        failed: (file.assertionResults ?? []).filter((test) => test.status === 'failed').length,
      });
      const failed = (file.assertionResults ?? []).filter((test) => test.status === 'failed');
      for (const test of failed) failures.push(`${db}: ${name} > ${test.fullName}\n    ${firstLine(test.failureMessages)}`);
      if (failed.length === 0 && file.status === 'failed') failures.push(`${db}: ${name}\n    ${firstLine([file.message])}`);
    }
    // Where the time goes: every file's times as an artifact, the pass's totals and ten slowest files here.
    files.sort((a, b) => b.seconds - a.seconds);
    const totalCpu = files.reduce((sum, file) => sum + (file.cpuSeconds ?? 0), 0);
    const fileSeconds = files.reduce((sum, file) => sum + file.seconds, 0);
    mkdirSync('test-results', { recursive: true });
    const times = { pass: db, node: process.version, wallSeconds: round(seconds), fileSeconds: round(fileSeconds), cpuSeconds: round(totalCpu), files };
    writeFileSync(join('test-results', `times-${db}.json`), `${JSON.stringify(times, null, 2)}\n`);
    const slowest = files.slice(0, 10).map((f) => `${f.name} ${f.seconds.toFixed(0)} s${f.cpuSeconds === null ? '' : ` (${f.cpuSeconds.toFixed(0)} s CPU)`}`);
    if (files.length > 0) timings.push(`${db}: ${seconds.toFixed(0)} s wall, ${files.length} files, ${totalCpu.toFixed(0)} s CPU (test-results/times-${db}.json); slowest:\n      ${slowest.join('\n      ')}`);
    rmSync(report, { force: true });
  } catch {
    totals.failed += 1;
    failures.push(`${db}: no test report (vitest exited ${status})`);
  }
  if (status !== 0) failedRun = true;
}

/** Every non-test .ts file under `dir`, comments removed, in one string. */
function serviceSource(dir) {
  const texts = [];
  for (const entry of readdirSync(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.test.ts')) continue;
    const text = readFileSync(join(entry.parentPath ?? entry.path, entry.name), 'utf8');
    texts.push(text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`])\/\/.*$/gm, '$1'));
  }
  return texts.join('\n');
}

function round(value) {
  return Math.round(value * 100) / 100;
}

const redisUp = await reachable(redisUrl.hostname, redisUrl.port || 6379);
if (!redisUp && ci) {
  console.error(`Redis is not reachable at ${redisUrl.host}; CI requires it.`);
  process.exit(1);
}
const redisEnv = redisUp ? { TEST_REDIS_URL: redisUrl.toString() } : {};

// GATEHOUSE_TEST_SET: 'full' (the default) is the main pass on each database with the fault project
// beside it; 'smoke' is the smoke set on SQLite (CI's second Node version: .ci/run); 'main' or 'fault'
// runs that part alone. GATEHOUSE_TEST_DATABASES=sqlite (or postgres) runs one database. A named file
// runs on every database test/suite.mjs gives it.
const set = process.env.GATEHOUSE_TEST_SET ?? 'full';
const named = extraArgs.some((arg) => !arg.startsWith('-'));
const databases = (process.env.GATEHOUSE_TEST_DATABASES ?? 'sqlite,postgres').split(',').map((name) => name.trim());
if (set === 'smoke') {
  console.log('GATEHOUSE_TEST_SET=smoke: the smoke set on SQLite (test/suite.mjs)');
  const smokeTemplates = await makeTemplates(['sqlite']);
  await runVitest('sqlite', smokeTemplates.env, 3, named ? 'any' : 'smoke');
  await smokeTemplates.remove();
  finish();
}

let pgUp = false;
if (databases.includes('postgres')) {
  pgUp = await reachable(pgUrl.hostname, pgUrl.port || 5432);
  if (!pgUp && ci) {
    console.error(`PostgreSQL is not reachable at ${pgUrl.host}; CI requires it.`);
    failedRun = true;
    totals.failed += 1;
  } else if (!pgUp) {
    console.warn(`PostgreSQL is not reachable at ${pgUrl.host}: skipped the PostgreSQL run.`);
  }
}
const runDatabases = databases.filter((db) => db === 'sqlite' || (db === 'postgres' && pgUp));

// On a whole PostgreSQL pass, every process records which repository functions it called
// (test/helpers/repo-calls.cjs); checkRepoCalls() fails the run on one that was never called.
const repoCalls = !named && runDatabases.includes('postgres') && set !== 'fault' ? repoCallsRecorder() : undefined;

// Every test server of this build starts from a migrated copy (test/helpers/templates.mjs): one migration
// run per database kind for the whole run instead of one per server.
const templates = await makeTemplates(runDatabases);
const envOf = (db) => ({ ...templates.env, ...(db === 'postgres' ? { TEST_PG_URL: pgUrl.toString(), ...redisEnv, ...(repoCalls?.env ?? {}) } : {}) });

const mainSet = named ? 'any' : 'main';
// Files a main pass runs at once. Most of a file's wall time is waiting (on its servers, mail, windows,
// timeouts), not CPU (test-results/times-*.json: a few seconds of CPU in tens of seconds), so three per
// database keep two cores busy; GATEHOUSE_TEST_WORKERS says otherwise.
const mainWorkers = Number(process.env.GATEHOUSE_TEST_WORKERS ?? 3);
const runMain = set === 'full' || set === 'main' || named;
const runFault = !named && (set === 'full' || set === 'fault');
// The passes are independent (each test file makes its own servers, databases and directories): the
// databases' main passes run at the same time, three files each, and the fault project beside them one file
// at a time (its files mostly wait on outages). GATEHOUSE_TEST_SERIAL=1 runs one pass after the other.
if (process.env.GATEHOUSE_TEST_SERIAL === '1') {
  if (runMain) for (const db of runDatabases) await runVitest(db, envOf(db), undefined, mainSet);
  if (runFault) for (const db of runDatabases) await runVitest(db, envOf(db), 1, 'fault');
} else {
  const passes = [];
  if (runMain) {
    console.log(`running the ${runDatabases.join(' and ')} passes at once${runFault ? ', the fault project beside them' : ''}; the output of each follows when it ends`);
    for (const db of runDatabases) passes.push(runVitest(db, envOf(db), mainWorkers, mainSet));
  }
  if (runFault) passes.push((async () => { for (const db of runDatabases) await runVitest(db, envOf(db), 1, 'fault'); })());
  await Promise.all(passes);
}
if (repoCalls) repoCalls.check();
await templates.remove();

finish();

/**
 * The run's migrated templates, for the databases it runs, and the environment that names them to the test
 * processes (test/helpers/db.ts); none when the build is missing (then each server migrates).
 */
async function makeTemplates(dbs) {
  const made = {};
  const remove = async () => {
    made.sqlite?.remove();
    await made.postgres?.remove().catch(() => {});
  };
  // GATEHOUSE_TEST_TEMPLATES=off: every server migrates from empty, as before (to compare, or to rule them out).
  if (process.env.GATEHOUSE_TEST_TEMPLATES === 'off') return { env: {}, remove: async () => {} };
  try {
    const { postgresTemplate, sqliteTemplate } = await import('./helpers/templates.mjs');
    made.sqlite = await sqliteTemplate();
    if (dbs.includes('postgres')) made.postgres = await postgresTemplate(pgUrl.toString());
  } catch (error) {
    await remove();
    console.warn(`no migrated templates (${error.message}): every test server migrates its own database`);
    return { env: {}, remove: async () => {} };
  }
  const env = { GATEHOUSE_TEST_SQLITE_TEMPLATE: made.sqlite.path, ...(made.postgres ? { GATEHOUSE_TEST_PG_TEMPLATE: made.postgres.name } : {}) };
  return { env, remove };
}

/**
 * GATEHOUSE_REPO_CALLS_DIR for the PostgreSQL passes, and the check that reads it afterwards: every
 * function exported by src/store/repos/*.ts was called by some process of those passes. Needs
 * module.registerHooks (Node >= 22.15): on an older Node the check says it did not run.
 */
function repoCallsRecorder() {
  const hook = resolve(import.meta.dirname, 'helpers/repo-calls.cjs');
  if (typeof createRequire(import.meta.url)('node:module').registerHooks !== 'function') {
    console.log(`repository calls on PostgreSQL: not checked (Node ${process.version} has no module.registerHooks)`);
    return undefined;
  }
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-repo-calls-'));
  const nodeOptions = `${process.env.NODE_OPTIONS ?? ''} --require=${hook}`.trim();
  return {
    env: { GATEHOUSE_REPO_CALLS_DIR: dir, NODE_OPTIONS: nodeOptions },
    check() {
      const called = new Set();
      for (const name of readdirSync(dir)) for (const line of readFileSync(join(dir, name), 'utf8').split('\n')) if (line) called.add(line);
      rmSync(dir, { recursive: true, force: true });
      const repos = join(import.meta.dirname, '../src/store/repos');
      const exported = [];
      for (const file of readdirSync(repos).filter((name) => name.endsWith('.ts') && !name.endsWith('.test.ts'))) {
        const source = readFileSync(join(repos, file), 'utf8');
        for (const match of source.matchAll(/^export (?:async )?function (\w+)/gm)) exported.push(`${file.slice(0, -3)}:${match[1]}`);
      }
      // An export nothing in src/ refers to (comments aside) is SQL the service cannot issue: named, not failed.
      const service = serviceSource(join(import.meta.dirname, '../src'));
      const unused = exported.filter((name) => (service.match(new RegExp(`\\b${name.split(':')[1]}\\b`, 'g')) ?? []).length <= 1);
      const missing = exported.filter((name) => !called.has(name) && !unused.includes(name));
      timings.push(`repository functions called on PostgreSQL: ${exported.length - unused.length - missing.length} of ${exported.length - unused.length}${unused.length > 0 ? `; exported but used nowhere in src/: ${unused.join(', ')}` : ''}`);
      for (const name of missing) failures.push(`postgres: src/store/repos/${name.replace(':', '.ts: ')} was never called on PostgreSQL (a file that reaches it runs on SQLite only: test/suite.mjs)`);
      if (missing.length > 0) failedRun = true;
    },
  };
}

function finish() {
  // How busy the whole machine was meanwhile (every process, the databases and browsers too): a run whose
  // cores were near 100 % busy is bound by CPU, one well under it by waiting.
  const machineAtEnd = machineTicks();
  if (machineAtStart && machineAtEnd && timings.length > 0) {
    const share = (machineAtEnd.busy - machineAtStart.busy) / Math.max(1, machineAtEnd.all - machineAtStart.all);
    timings.push(`machine: ${(share * 100).toFixed(0)} % of its ${availableParallelism()} cores busy during the run`);
  }
  if (timings.length > 0) console.log(`\ntimes:\n${timings.map((line) => `  ${line}`).join('\n')}`);
  if (failures.length > 0) console.log(`\nfailed:\n${failures.map((line) => `  ${line}`).join('\n')}`);
  console.log(`\n${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped`);
  process.exit(failedRun || totals.failed > 0 ? 1 : 0);
}
