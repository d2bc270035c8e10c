import { SYSTEM_CONTEXT } from '../../src/services/events/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { DEAD_SESSION_RETENTION_DAYS, pruneExpiredRows } from '../../src/services/maintenance.js';
import { REFRESH_TOKEN_SECONDS, refreshSession, revokeSession, startSession } from '../../src/services/sessions/sessions.js';
import { findUserById, insertUser } from '../../src/store/repos/users.js';
import { openEarlierSession } from '../helpers/earlier-tokens.js';
import { openInProcess } from '../helpers/in-process.js';

// Bounded growth (issue 14): the clean-up job removes dead sessions and their refresh tokens after the
// documented retention, in-process on the run's real database with a clock the test moves.
let deps: Deps;
let dir: string;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-03-01T00:00:00.000Z');
const clock: Clock = { now: () => now };
const DAY = 86_400;

beforeAll(async () => {
  ({ deps, dir, close } = await openInProcess(clock, () => ({ RATE_LIMITS: 'off' })));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });
const sessionIds = async () => (await deps.db.selectFrom('sessions').select('id').execute()).map((r) => r.id).sort();
const tokensOf = async (sessionId: string) => (await deps.db.selectFrom('refresh_tokens').select('token_hash').where('session_id', '=', sessionId).execute()).length;

describe('clean-up of dead sessions (retention DEAD_SESSION_RETENTION_DAYS)', () => {
  it('deletes revoked and expired sessions with their refresh tokens only after the retention; live sessions stay and work', async () => {
    const tenant = await createTenant(appsDeps(), 'T');
    const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
    const userId = '00000000-0000-4000-8000-000000000002';
    await insertUser(deps.db, { id: userId, app_id: app.app_id, email: 'p@example.com', email_normalized: 'p@example.com', email_verified: 1, password_hash: null, is_bot: 0, public_key: null, created_at: iso(now), updated_at: iso(now) });
    const user = (await findUserById(deps.db, app.app_id, userId))!;

    // A session from before migration 0014: two refresh tokens of the earlier form hang off it.
    const earlier = await openEarlierSession(deps.db, { appId: app.app_id, userId, now: iso(now), expiresAt: iso(addSeconds(now, REFRESH_TOKEN_SECONDS)), rotated: true });
    const revoked = { session_id: earlier.sessionId };
    expect(await revokeSession(deps, { id: app.app_id, tenantId: app.tenant_id }, revoked.session_id, SYSTEM_CONTEXT)).toBe(true);
    const expiring = await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, user, { opening: { method: 'password' } }); // never refreshed: dies after REFRESH_TOKEN_SECONDS
    const live = await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, user, { opening: { method: 'password' } });
    expect(await tokensOf(revoked.session_id)).toBe(2);
    // Time passes in steps of at most 20 days; `live` refreshes at each, as a busy client would.
    let liveTokens = await refreshSession(deps, app.app_id, live.refresh_token);
    const advance = async (days: number) => {
      for (let left = days; left > 0; left -= 20) {
        now = addSeconds(now, Math.min(20, left) * DAY);
        liveTokens = await refreshSession(deps, app.app_id, liveTokens.refresh_token);
      }
    };

    // Within the retention after the revocation: nothing of it is deleted.
    await advance(DEAD_SESSION_RETENTION_DAYS - 1);
    expect(await pruneExpiredRows(deps)).toMatchObject({ ran: true, sessions: 0 });
    expect(await sessionIds()).toEqual([revoked.session_id, expiring.session_id, live.session_id].sort());

    // Past it: the revoked session and both its tokens are gone; the others stay (`expiring` died on day
    // 30, less than the retention ago).
    await advance(2);
    const report = await pruneExpiredRows(deps);
    expect(report).toMatchObject({ ran: true, sessions: 1 });
    expect(await sessionIds()).toEqual([expiring.session_id, live.session_id].sort());
    expect(await tokensOf(revoked.session_id)).toBe(0);

    // `expiring` past its end plus the retention: gone; `live` stays.
    await advance(DEAD_SESSION_RETENTION_DAYS);
    expect(await pruneExpiredRows(deps)).toMatchObject({ ran: true, sessions: 1 });
    expect(await sessionIds()).toEqual([live.session_id]);
    const again = await refreshSession(deps, app.app_id, liveTokens.refresh_token);
    expect(again.session_id).toBe(live.session_id);
  });
});
