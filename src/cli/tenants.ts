import type { Command } from 'commander';
import * as listing from '../services/apps/listing.js';
import { markTenantDeleted } from '../services/apps/deletion.js';
import * as apps from '../services/apps/apps.js';
import { appsDeps } from './apps.js';
import { deleteAndPurge, deleteOptions, requireYes, type DeleteFlags } from './deletion.js';
import { print, printAnswer, withDeps } from './shared.js';
import { invite } from '../services/management/invitations.js';
import type { ConsoleCaller } from '../services/management/roles.js';
import { OPERATOR_CONTEXT } from '../services/events/types.js';
import type { Cli } from './io.js';

/** The shell is the operator's (events name it so). */
const OPERATOR: ConsoleCaller = { actor: { type: 'operator', id: null }, operator: true };

// `gatehouse tenant ...` (docs/operations.md).

export function registerTenantCommands(program: Command, cli: Cli): void {
  const tenant = program.command('tenant').description('manage tenants');
  tenant
    .command('create')
    .requiredOption('--name <name>', 'tenant name')
    .option('--owner-email <email>', "invite this email as the tenant's owner (emailed; --json adds invitation_url)")
    .option('--json', 'print JSON')
    .action(async (flags: { name: string; ownerEmail?: string; json?: boolean }) => {
      const created = await withDeps(cli, async (deps) => {
        const tenant = await apps.createTenant(appsDeps(deps), flags.name);
        if (flags.ownerEmail === undefined) return tenant;
        const invitation = await invite(deps, OPERATOR, tenant.tenant_id, flags.ownerEmail, 'owner', OPERATOR_CONTEXT);
        return { ...tenant, invitation_url: invitation.invitation_url };
      });
      if (!flags.json && 'invitation_url' in created) cli.stderr.write(`The owner is invited by email; the link works once, for 7 days.\n`);
      print(cli, created, flags.json);
    });
  tenant
    .command('list')
    .description('live tenants (deleted ones are not listed)')
    .option('--json', 'print JSON')
    .action((flags: { json?: boolean }) =>
      printAnswer(cli, flags.json, (deps) => listing.listTenants(deps), ({ tenants }) => {
        for (const t of tenants) cli.stdout.write(`${t.tenant_id}  ${t.name}  ${t.created_at}\n`);
      }),
    );
  tenant
    .command('show')
    .argument('<tenant_id>')
    .description('the tenant and its apps')
    .option('--json', 'print JSON')
    .action((tenantId: string, flags: { json?: boolean }) =>
      printAnswer(cli, flags.json, (deps) => listing.showTenant(deps, tenantId), (shown) => print(cli, { ...shown, apps: shown.apps.map((a) => `${a.app_id} (${a.name})`) }, false)),
    );
  deleteOptions(tenant.command('delete').argument('<tenant_id>'))
    .description('delete every app of the tenant as app delete does; the tenant stays, marked deleted, with its billing ledger')
    .action(async (tenantId: string, flags: DeleteFlags) => {
      requireYes(flags, `gatehouse tenant delete ${tenantId} --yes`);
      await printAnswer(cli, flags.json, async (deps) => ({ tenant_id: tenantId, ...(await deleteAndPurge(cli, deps, () => markTenantDeleted(deps, tenantId), flags)) }));
    });
}
