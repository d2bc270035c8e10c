// `gatehouse serve` with its background jobs on call, for bench/data-scale.mjs: the server exactly as `gatehouse
// serve` runs it (the same serve(), configuration and logger), which on a message from its parent (IPC: {job:
// 'prune'} or {job: 'billing', period: 'YYYY-MM'}) runs the clean-up or a billing run in its own process, as its
// timers do every 10 minutes and every hour, and answers {seconds, max_ms, result} or {error}. Requests meanwhile
// share the event loop (and, on SQLite, the connection) with the job: their latency is what the job costs them.
// max_ms: the longest gap between two ticks of a 1 ms timer while the job ran, less 1 ms (requests' own work
// included).
//   spawned by bench/lib/server.mjs startServer({ jobs: true }); needs `npm run build`.
import { readConfig } from '../../dist/src/cli/shared.js';
import { serveLogDestination } from '../../dist/src/observability/log-pretty.js';
import { createLogger } from '../../dist/src/observability/logger.js';
import { serve } from '../../dist/src/main.js';
import { runMetering } from '../../dist/src/services/billing/metering.js';
import { parsePeriod } from '../../dist/src/services/billing/pricing.js';
import { pruneExpiredRows } from '../../dist/src/services/maintenance.js';

const config = readConfig({ serve: true });
await serve(config, createLogger(config.logLevel, serveLogDestination(config.database)), (deps) => {
  process.on('message', async ({ job, period }) => {
    let last = performance.now();
    let longest = 0;
    const tick = () => {
      const now = performance.now();
      longest = Math.max(longest, now - last - 1);
      last = now;
    };
    const timer = setInterval(tick, 1);
    const started = performance.now();
    try {
      const result = job === 'prune' ? await pruneExpiredRows(deps) : { charges: await runMetering(deps, parsePeriod(period, deps.clock.now())) };
      tick();
      process.send({ seconds: (performance.now() - started) / 1000, max_ms: longest, result });
    } catch (error) {
      process.send({ error: String(error?.stack ?? error) });
    } finally {
      clearInterval(timer);
    }
  });
  // The IPC channel must not keep a server alive that was told to stop.
  process.channel?.unref();
});
