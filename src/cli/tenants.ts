import type { Command } from 'commander';
import * as apps from '../services/apps.js';
import { appsDeps } from './apps.js';
import { print, withDeps } from './shared.js';

// `gatehouse tenant ...` (contract.md section 1).

export function registerTenantCommands(program: Command): void {
  const tenant = program.command('tenant').description('manage tenants');
  tenant
    .command('create')
    .requiredOption('--name <name>', 'tenant name')
    .option('--json', 'print JSON')
    .action(async (flags: { name: string; json?: boolean }) => {
      print(await withDeps((deps) => apps.createTenant(appsDeps(deps), flags.name)), flags.json);
    });
}
