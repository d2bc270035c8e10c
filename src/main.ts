import cluster from 'node:cluster';
import { buildApp } from './app.js';
import { closeIdleConnectionsLater } from './http/graceful-close.js';
import type { Config } from './config/index.js';
import { createDeps, type Deps } from './deps.js';
import { PASSWORD_HASH_SLOTS, THREAD_POOL_SIZE } from './crypto/passwords.js';
import { boundHeapGrowth } from './runtime/heap-growth.js';
import { holdTickObjectShape } from './runtime/tick-shape.js';
import { openStore } from './store/db.js';
import { LogThrottle } from './observability/log-throttle.js';
import { logIsPretty } from './observability/log-pretty.js';
import { RELEASE } from './release.js';
import { stopTracing } from './observability/tracing.js';
import type { Logger } from './observability/logger.js';
import { scheduleMaintenance } from './services/maintenance.js';
import { scheduleUploadLiveness } from './services/objects/upload-sweep.js';
import { schedulePurge } from './services/apps/purge.js';
import { scheduleOrganizationPurge } from './services/organizations/purge.js';
import { scheduleEventRetention } from './services/events/retention.js';
import { scheduleMetering } from './services/billing/metering.js';
import { startMailWorker } from './services/mail/worker.js';
import { startWebhookWorker } from './services/webhooks/worker.js';
import { startNodeHeartbeat } from './services/nodes.js';
import { checkMasterKey } from './services/apps/master-key-check.js';
import { migrateToLatest } from './store/migrations/index.js';
import { prepareConsole } from './runtime/console-setup.js';
import { refreshPlannerStatistics } from './store/statistics.js';

/**
 * loadConfig → createDeps → migrate → check the master key → buildApp → listen, with the mail worker
 * beside; on SIGTERM/SIGINT drains and closes within SHUTDOWN_GRACE_SECONDS (docs/operations.md).
 * `listening` is told the server's dependencies once it listens (bench/lib/job-server.mjs runs the
 * background jobs through them, in the server's process, on call).
 */
export async function serve(config: Config, log: Logger, listening?: (deps: Deps) => void): Promise<void> {
  routeProcessWarnings(log);
  boundHeapGrowth();
  await holdTickObjectShape();
  const deps = createDeps(config, log, { serving: true });
  try {
    const applied = await migrate(config, deps);
    if (applied.length) log.info({ migrations: applied }, 'migrations applied');
    await checkMasterKey(deps);
    // With --workers the primary announced the setup link already.
    await prepareConsole(deps, !cluster.isWorker);
    await refreshPlannerStatistics(deps.db, { startUp: true });
  } catch (error) {
    // Nothing listens yet: close the pool (and Redis) so the process exits with the error.
    await deps.close();
    throw error;
  }
  log.info({ thread_pool: THREAD_POOL_SIZE, password_hash_slots: PASSWORD_HASH_SLOTS }, 'password hashing');
  const app = await buildApp(deps);
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (error) {
    // Nothing listens (the port is taken): close what was opened so the process exits with the error.
    await app.close();
    await deps.close();
    throw error;
  }
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  // With --workers, the first worker prints the banner for all. Where the log is JSON lines (PostgreSQL,
  // or no terminal) the banner is one of them: standard output carries nothing but JSON there.
  if (!cluster.isWorker || cluster.worker?.id === 1) {
    if (logIsPretty(config.database)) process.stdout.write(banner(config, port));
    else log.info(bannerFields(config, port), bannerTitle(config, port));
  }
  // The release record (docs/upgrading.md): this node's row, written now and every NODE_HEARTBEAT_SECONDS.
  const stopHeartbeat = await startNodeHeartbeat(deps);
  const stopMaintenance = scheduleMaintenance(deps);
  const stopUploadLiveness = scheduleUploadLiveness(deps);
  const stopMetering = scheduleMetering(deps);
  const stopPurge = schedulePurge(deps);
  const stopOrgPurge = scheduleOrganizationPurge(deps);
  const stopEventRetention = scheduleEventRetention(deps);
  const mailWorker = startMailWorker(deps);
  const webhookWorker = startWebhookWorker(deps);
  listening?.(deps);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    // Whatever hangs (a request stuck on a dead dependency, a relay that never answers), the process
    // is gone within SHUTDOWN_GRACE_SECONDS.
    const grace = config.shutdownGraceSeconds * 1000;
    setTimeout(() => {
      log.error({ signal, grace_seconds: config.shutdownGraceSeconds }, 'shutdown grace ran out; exiting now');
      process.exit(1);
    }, grace).unref();
    // Health answers 503 from now on, so load balancers stop sending; requests keep being served
    // for SHUTDOWN_DRAIN_SECONDS while they notice.
    deps.lifecycle.draining = true;
    log.info({ signal, grace_seconds: config.shutdownGraceSeconds, drain_seconds: config.shutdownDrainSeconds }, 'shutting down');
    // No new email from now on and no new relay connection; sends in flight get a moment, then their
    // rows go back to the outbox for the next node or start (services/mail/worker.ts).
    const mailStopped = mailWorker.stop(Math.max(0, grace - 1_000));
    // Attempts in flight get the same moment; the rest go back to the queue for the next node or start.
    const webhooksStopped = webhookWorker.stop(Math.max(0, grace - 1_000));
    let code = 0;
    try {
      if (config.shutdownDrainSeconds > 0) await new Promise((r) => setTimeout(r, config.shutdownDrainSeconds * 1000));
      stopMaintenance();
      stopUploadLiveness();
      stopMetering();
      stopPurge();
      stopOrgPurge();
      stopEventRetention();
      // Stops accepting, lets requests in flight finish (new requests on kept-alive connections get 503).
      closeIdleConnectionsLater(app.server);
      await app.close();
      await mailStopped;
      await webhooksStopped;
      await stopHeartbeat();
      await deps.close();
      await stopTracing();
    } catch (error) {
      log.error({ err: error }, 'shutdown failed');
      code = 1;
    } finally {
      process.exit(code);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

/**
 * Node writes process warnings (deprecations, notices such as the AWS SDK's about Node versions) as plain
 * text on stderr, in the middle of the JSON log: they go through the logger instead, each kind once an hour.
 */
function routeProcessWarnings(log: Logger): void {
  const throttle = new LogThrottle(3_600_000);
  process.removeAllListeners('warning');
  process.on('warning', (warning: Error & { code?: string }) => {
    const suppressed = throttle.admit(`${warning.name}:${warning.code ?? warning.message.slice(0, 80)}`);
    if (suppressed !== undefined) log.warn({ code: 'process_warning', warning: warning.name, warning_code: warning.code, suppressed }, warning.message);
  });
}

/**
 * Applies pending migrations. On PostgreSQL through a short-lived pool without query timeouts: a
 * migration, or waiting for another node's migration lock, may take longer than any request should.
 */
async function migrate(config: Config, deps: Deps): Promise<string[]> {
  if (deps.store.dialect !== 'postgres') return migrateToLatest(deps.db);
  const store = openStore(config.database, { queryTimeoutMs: 0, poolTimeoutMs: config.dbPoolTimeoutMs });
  try {
    return await migrateToLatest(store.db);
  } finally {
    await store.close();
  }
}

/** An example page origin on the API's own host name (a page on localhost calling 127.0.0.1 loses its cookies). */
function pageOrigin(config: Config): string {
  const host = new URL(config.publicBaseUrl).hostname;
  return `http://${host === '0.0.0.0' || host === '[::]' ? '127.0.0.1' : host}:3000`;
}

function bannerTitle(config: Config, port: number): string {
  const db = config.database.kind === 'sqlite' ? `SQLite at ${config.database.path}` : 'PostgreSQL';
  return `Gatehouse is listening on http://${config.host}:${port} (${db})`;
}

/** The banner as a JSON log line's fields. */
function bannerFields(config: Config, port: number) {
  return { code: 'listening', release: RELEASE.name, address: `http://${config.host}:${port}`, docs: `http://${config.host}:${port}/docs`, example_origin: pageOrigin(config) };
}

function banner(config: Config, port: number): string {
  return [
    '',
    `${bannerTitle(config, port)}, release ${RELEASE.name}`,
    '',
    'Create a tenant and an application (in another terminal, same directory):',
    '  npx gatehouse tenant create --name "My company"',
    `  npx gatehouse app create --tenant <tenant_id> --name "My app" --allowed-origin ${pageOrigin(config)}`,
    '(serve your page from the same host name as the API, here on port 3000: docs/browser.md says why)',
    '',
    `API reference: http://${config.host}:${port}/docs`,
    '',
  ].join('\n');
}
