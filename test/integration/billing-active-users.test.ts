import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { measureUsage } from '../../src/services/billing/metering.js';
import { parsePeriod } from '../../src/services/billing/pricing.js';
import { refreshSession, REFRESH_TOKEN_SECONDS, startSession } from '../../src/services/sessions/sessions.js';
import { findUserById, insertUser } from '../../src/store/repos/users.js';
import { backfillActiveUsers } from '../../src/store/migrations/0022-data-scale.js';
import { openEarlierSession } from '../helpers/earlier-tokens.js';
import { openInProcess } from '../helpers/in-process.js';

// Monthly active users count a refresh in the month it happened, in-process on the run's real database
// with a clock the test moves: a session's start and its first refresh of each month mark the user in
// active_users (migration 0022), and a session from before migration 0014 counts by what the migration
// filled from its refresh token's row, and then by its refreshes like the rest.
let deps: Deps;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-01-10T12:00:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, close } = await openInProcess(clock, () => ({ RATE_LIMITS: 'off' })));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });

describe('12 monthly active users and refreshes', () => {
  it('a user counts in every month a session of theirs started or was refreshed in, and in no other', async () => {
    const tenant = await createTenant(appsDeps(), 'T');
    const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
    const user = async (n: number) => {
      const id = `00000000-0000-4000-8000-00000000010${n}`;
      await insertUser(deps.db, { id, app_id: app.app_id, email: `u${n}@example.com`, email_normalized: `u${n}@example.com`, email_verified: 1, password_hash: null, is_bot: 0, public_key: null, created_at: iso(now), updated_at: iso(now) });
      return (await findUserById(deps.db, app.app_id, id))!;
    };
    const active = async (month: string) => (await measureUsage(deps.db, tenant.tenant_id, parsePeriod(month, now))).monthlyActiveUsers;

    const a = await user(1);
    const c = await user(3);
    await user(2); // never signs in
    let aTokens = await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, a, { opening: { method: 'password' } });
    const earlier = await openEarlierSession(deps.db, { appId: app.app_id, userId: c.id, now: iso(now), expiresAt: iso(addSeconds(now, REFRESH_TOKEN_SECONDS)) });
    // Written as a release before migration 0022 wrote it (no active-user mark): the migration's fill counts it.
    await backfillActiveUsers(deps.db);
    expect(await active('2026-01')).toBe(2);

    now = new Date('2026-02-05T12:00:00.000Z');
    expect(await active('2026-02')).toBe(0);
    aTokens = await refreshSession(deps, app.app_id, aTokens.refresh_token);
    const cTokens = await refreshSession(deps, app.app_id, earlier.token); // moves to the session-held form
    now = new Date('2026-02-20T12:00:00.000Z');
    aTokens = await refreshSession(deps, app.app_id, aTokens.refresh_token);
    expect(await active('2026-02')).toBe(2);

    // A refresh in March keeps February's count (the metering run for February reads it in March).
    now = new Date('2026-03-02T12:00:00.000Z');
    aTokens = await refreshSession(deps, app.app_id, aTokens.refresh_token);
    expect(await active('2026-02')).toBe(2);
    expect(await active('2026-03')).toBe(1);
    await refreshSession(deps, app.app_id, cTokens.refresh_token);
    expect(await active('2026-03')).toBe(2);
    expect(await active('2026-01')).toBe(2);
  });
});
