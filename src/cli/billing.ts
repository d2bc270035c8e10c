import { InvalidArgumentError, type Command } from 'commander';
import type { Deps } from '../deps.js';
import { adjustBalance, billingOverview } from '../services/billing/account.js';
import { runMetering } from '../services/billing/metering.js';
import { parseUsd } from '../services/billing/money.js';
import { parsePeriod, previousPeriod } from '../services/billing/pricing.js';
import { findTenant } from '../store/repos/tenants.js';
import { ApiError } from '../errors.js';
import { print, withDeps } from './shared.js';
import type { Cli } from './io.js';

// `gatehouse billing credit | run | show` (docs/operations.md).

function signedUsd(value: string): number {
  if (!/^-?\d+(\.\d{1,2})?$/.test(value)) throw new InvalidArgumentError('expected a USD amount like 10, 2.50 or -5');
  return Number(value);
}

const overviewDeps = (deps: Deps) => ({ db: deps.db, clock: deps.clock, config: deps.config, confirmations: deps.confirmations });

export function registerBillingCommands(program: Command, cli: Cli): void {
  const billing = program.command('billing').description('tenant balances, manual credits and metering');

  billing
    .command('credit')
    .description('a manual ledger row of type adjustment (a negative amount is a debit); crossing zero pauses or resumes the tenant')
    .requiredOption('--tenant <tenant_id>', 'tenant')
    .requiredOption('--amount-usd <amount>', 'USD, at most 2 decimals; negative for a debit', signedUsd)
    .requiredOption('--note <text>', 'the row description')
    .option('--json', 'print JSON')
    .action(async (flags: { tenant: string; amountUsd: number; note: string; json?: boolean }) => {
      const cents = parseUsd(flags.amountUsd, '--amount-usd', 'any');
      if (!flags.note.trim()) throw new ApiError(400, 'validation_failed', '--note must not be empty');
      print(cli, await withDeps(cli, (deps) => adjustBalance(deps, flags.tenant, cents, flags.note.trim())), flags.json);
    });

  billing
    .command('run')
    .description('metering run: charges each (tenant, period, item) once (default: the last closed month)')
    .option('--period <YYYY-MM>', 'the month to charge; the current month charges its usage so far, once')
    .option('--json', 'print JSON')
    .action(async (flags: { period?: string; json?: boolean }) => {
      const result = await withDeps(cli, async (deps) => {
        const now = deps.clock.now();
        const period = flags.period ? parsePeriod(flags.period, now) : previousPeriod(now);
        return { period: period.name, charges: await runMetering(deps, period) };
      });
      if (flags.json) return print(cli, result, true);
      cli.stdout.write(`period ${result.period}: ${result.charges.length} charges\n`);
      for (const c of result.charges) cli.stdout.write(`${c.tenant_id} ${c.item} ${c.quantity} → ${c.amount_usd} USD\n`);
    });

  billing
    .command('show')
    .description('balance, pause state and usage of a tenant, as GET /v1/billing shows them')
    .requiredOption('--tenant <tenant_id>', 'tenant')
    .option('--json', 'print JSON')
    .action(async (flags: { tenant: string; json?: boolean }) => {
      const overview = await withDeps(cli, async (deps) => {
        if (!(await findTenant(deps.db, flags.tenant))) throw new ApiError(404, 'not_found', `tenant ${flags.tenant} not found`);
        return billingOverview(overviewDeps(deps), flags.tenant);
      });
      if (flags.json) return print(cli, overview, true);
      print(cli, { tenant_id: overview.tenant_id, balance_usd: overview.balance_usd, paused: overview.paused, ...overview.usage }, false);
    });
}
