import { buildApp } from './app.js';
import type { Config } from './config/index.js';
import { createDeps } from './deps.js';
import type { Logger } from './logger.js';
import { scheduleMaintenance } from './services/maintenance.js';
import { migrateToLatest } from './store/migrations/index.js';

/** loadConfig → createDeps → migrate → buildApp → listen; closes gracefully on SIGTERM/SIGINT. */
export async function serve(config: Config, log: Logger): Promise<void> {
  const deps = createDeps(config, log);
  const applied = await migrateToLatest(deps.db);
  if (applied.length) log.info({ migrations: applied }, 'migrations applied');
  const app = await buildApp(deps);
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  process.stdout.write(banner(config, port));
  const stopMaintenance = scheduleMaintenance(deps);

  let closing = false;
  const shutdown = async (signal: string) => {
    if (closing) return;
    closing = true;
    log.info({ signal }, 'shutting down');
    try {
      stopMaintenance();
      await app.close();
      await deps.close();
    } finally {
      process.exit(0);
    }
  };
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  process.on('SIGINT', () => void shutdown('SIGINT'));
}

function banner(config: Config, port: number): string {
  const db = config.database.kind === 'sqlite' ? `SQLite at ${config.database.path}` : 'PostgreSQL';
  return [
    '',
    `Gatehouse is listening on http://${config.host}:${port} (${db})`,
    '',
    'Create a tenant and an application (in another terminal, same directory):',
    '  npx gatehouse tenant create --name "My company"',
    '  npx gatehouse app create --tenant <tenant_id> --name "My app" --allowed-origin http://localhost:3000',
    '',
    `API reference: http://${config.host}:${port}/docs`,
    '',
  ].join('\n');
}
