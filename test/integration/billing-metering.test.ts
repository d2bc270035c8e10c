import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { METERING_JOB, runMetering, runScheduledMetering } from '../../src/services/billing/metering.js';
import { parsePeriod } from '../../src/services/billing/pricing.js';
import { startSession } from '../../src/services/sessions/sessions.js';
import { findApplication } from '../../src/store/repos/applications.js';
import { acquireJobLock } from '../../src/store/repos/job-locks.js';
import { findUserById, insertUser } from '../../src/store/repos/users.js';
import { openInProcess } from '../helpers/in-process.js';

// The scheduled metering run in-process, on the real database of the run, with a clock the test moves:
// it charges the last closed month, once, on one node at a time, and a charge below zero pauses the apps.
let deps: Deps;
let dir: string;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-01-15T12:00:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, dir, close } = await openInProcess(clock, () => ({ RATE_LIMITS: 'off', BILLING_PRICES: 'mau=0.5,mau_free=0' })));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });

describe('12 scheduled metering', () => {
  it('charges the last closed month once, under the lease; the charge below zero pauses the tenant’s apps', async () => {
    const tenant = await createTenant(appsDeps(), 'T');
    const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
    const userId = '00000000-0000-4000-8000-000000000002';
    await insertUser(deps.db, { id: userId, app_id: app.app_id, email: 'm@example.com', email_normalized: 'm@example.com', email_verified: 1, password_hash: null, is_bot: 0, public_key: null, created_at: iso(now), updated_at: iso(now) });
    await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, (await findUserById(deps.db, app.app_id, userId))!, { opening: { method: 'password' } });

    now = new Date('2026-02-01T00:30:00.000Z');
    // Another node holds the lease: this one does nothing.
    expect(await acquireJobLock(deps.db, METERING_JOB, 'other-node', iso(now), iso(addSeconds(now, 60)))).toBe(true);
    expect(await runScheduledMetering(deps)).toBeUndefined();
    now = addSeconds(now, 61);

    const charges = await runScheduledMetering(deps);
    expect(charges?.find((c) => c.item === 'monthly_active_users')).toMatchObject({ tenant_id: tenant.tenant_id, period: '2026-01', quantity: 1, amount_usd: 0.5 });
    expect((await findApplication(deps.db, app.app_id))?.paused).toBe(true);
    expect(await runScheduledMetering(deps)).toEqual([]);
    const rows = await deps.db.selectFrom('billing_ledger').selectAll().where('tenant_id', '=', tenant.tenant_id).execute();
    expect(rows.map((r) => [r.type, Number(r.amount_cents), Number(r.balance_after_cents)])).toEqual([['usage', -50, -50]]);
  });

  it('a run lets waiting requests in between two tenants (better-sqlite3 runs every statement on the event loop)', async () => {
    for (const name of ['Many 1', 'Many 2', 'Many 3']) await createTenant(appsDeps(), name);
    // A request waiting for the event loop gets a turn whenever the run lets others in (a turn of setImmediate).
    let turns = 0;
    let running = true;
    const turn = () => {
      if (!running) return;
      turns += 1;
      setImmediate(turn);
    };
    setImmediate(turn);
    await runMetering(deps, parsePeriod('2026-01', now));
    running = false;
    expect(turns).toBeGreaterThanOrEqual(3);
  });
});
