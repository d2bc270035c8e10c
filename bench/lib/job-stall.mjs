// A background job of the service run as its CLI command runs it (`gatehouse prune`, `gatehouse billing run
// --period P`: the same withDeps and the same service function), with the event loop watched only while the
// job itself runs (not while Node loads the CLI). better-sqlite3 runs each statement on the event loop, so
// the longest stall here is how long the same job, run by the server (the 10-minute clean-up, the hourly
// billing run), would hold every request. Used by bench/data-scale.mjs; needs `npm run build`.
//   node bench/lib/job-stall.mjs prune | billing YYYY-MM   (with the server's DATABASE_URL, MASTER_KEY, cwd)
// Writes one JSON line: { seconds, max_ms (the longest gap between two ticks of a 1 ms timer, less 1 ms),
// max_cpu_ms (the most CPU the process used between two ticks: on a machine shared with other work a
// stall's wall time stretches with the queue for the cores, its CPU time does not), ticks, result }.
import { withDeps } from '../../dist/src/cli/shared.js';
import { pruneExpiredRows } from '../../dist/src/services/maintenance.js';
import { runMetering } from '../../dist/src/services/billing/metering.js';
import { parsePeriod } from '../../dist/src/services/billing/pricing.js';

const [job, period] = process.argv.slice(2);
const out = await withDeps(async (deps) => {
  let last = performance.now();
  let lastCpu = process.cpuUsage();
  let longest = 0;
  let longestCpu = 0;
  let ticks = 0;
  const tick = () => {
    const now = performance.now();
    const cpu = process.cpuUsage(lastCpu);
    longest = Math.max(longest, now - last - 1);
    longestCpu = Math.max(longestCpu, (cpu.user + cpu.system) / 1000);
    last = now;
    lastCpu = process.cpuUsage();
    ticks += 1;
  };
  const timer = setInterval(tick, 1);
  const started = performance.now();
  const result = job === 'prune' ? await pruneExpiredRows(deps) : { charges: await runMetering(deps, parsePeriod(period, deps.clock.now())) };
  const seconds = (performance.now() - started) / 1000;
  clearInterval(timer);
  tick(); // the stretch since the last tick counts too
  return { seconds, max_ms: longest, max_cpu_ms: longestCpu, ticks, result };
});
process.stdout.write(`${JSON.stringify(out)}\n`);
