import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { refreshSession, REFRESH_TOKEN_SECONDS, startSession } from '../../src/services/sessions/sessions.js';
import { findLiveSession } from '../../src/store/repos/sessions.js';
import { findUserById, insertUser } from '../../src/store/repos/users.js';
import { forgedRefreshToken, openEarlierSession } from '../helpers/earlier-tokens.js';
import { openInProcess } from '../helpers/in-process.js';

// Reuse of rotated refresh tokens (contract 5: refused within 10 s of its rotation, the session revoked
// after), in-process on the run's real database with a clock the test moves, for every generation a
// token can be behind, for forgeries, and for tokens of the form before migration 0014.
let deps: Deps;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-04-01T00:00:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, close } = await openInProcess(clock, () => ({ RATE_LIMITS: 'off' })));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });
const later = (seconds: number) => (now = addSeconds(now, seconds));

async function fixture() {
  const tenant = await createTenant(appsDeps(), 'T');
  const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
  const other = await createApp(appsDeps(), tenant.tenant_id, 'B', {});
  const userId = crypto.randomUUID();
  await insertUser(deps.db, { id: userId, app_id: app.app_id, email: `${userId}@example.com`, email_normalized: `${userId}@example.com`, email_verified: 1, password_hash: null, is_bot: 0, public_key: null, created_at: iso(now), updated_at: iso(now) });
  const user = (await findUserById(deps.db, app.app_id, userId))!;
  const refresh = (token: string, appId = app.app_id) => refreshSession(deps, appId, token);
  const live = async (sessionId: string) => (await findLiveSession(deps.db, app.app_id, sessionId, iso(now))) !== undefined;
  return { app, other, user, userId, refresh, live };
}

describe('contract 5 refresh reuse', () => {
  it('one or two generations behind: refused within 10 s of its rotation, ends the session after; forgeries and other apps end nothing', async () => {
    const { other, user, refresh, live, app } = await fixture();
    const t0 = await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, user, { opening: { method: 'password' } });
    const t1 = await refresh(t0.refresh_token);
    const t2 = await refresh(t1.refresh_token);
    await expect(refresh(t0.refresh_token)).rejects.toMatchObject({ status: 401 }); // two behind, rotated just now
    await expect(refresh(t1.refresh_token)).rejects.toMatchObject({ status: 401 }); // one behind, rotated just now
    await expect(refresh(t2.refresh_token, other.app_id)).rejects.toMatchObject({ status: 401 });
    expect(await live(t0.session_id)).toBe(true);

    later(11);
    // Made-up tokens naming the session, of any generation (the largest past what the row can hold), and
    // the current token with its MAC altered.
    for (const generation of [0, 1, 2, 3, 9, 0x7fffffff, 0xfffffffe]) {
      await expect(refresh(forgedRefreshToken(t0.session_id, generation))).rejects.toMatchObject({ status: 401 });
    }
    const altered = Buffer.from(t2.refresh_token.slice(3), 'base64url');
    altered[40] ^= 0x01; // a bit of the MAC
    await expect(refresh(`rt_${altered.toString('base64url')}`)).rejects.toMatchObject({ status: 401 });
    expect(await live(t0.session_id)).toBe(true);
    const t3 = await refresh(t2.refresh_token);
    expect(await live(t0.session_id)).toBe(true);

    // t0 is now three behind, t1 two behind (rotated 11 s ago): theft.
    await expect(refresh(t1.refresh_token)).rejects.toMatchObject({ status: 401 });
    expect(await live(t0.session_id)).toBe(false);
    await expect(refresh(t3.refresh_token)).rejects.toMatchObject({ status: 401 });
  });

  it('three or more generations behind ends the session however recent the rotations before it (a thief refreshing the stolen line often)', async () => {
    const { user, refresh, live, app } = await fixture();
    const t0 = await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, user, { opening: { method: 'password' } });
    later(60);
    let current = await refresh(t0.refresh_token);
    for (let i = 0; i < 3; i++) {
      later(3);
      current = await refresh(current.refresh_token);
    }
    // The last two rotations were 3 and 6 s ago; t0 was rotated 9 s ago, its successors since.
    await expect(refresh(t0.refresh_token)).rejects.toMatchObject({ status: 401 });
    expect(await live(t0.session_id)).toBe(false);
    await expect(refresh(current.refresh_token)).rejects.toMatchObject({ status: 401 });
  });

  it('one generation behind, more than 10 s after its rotation, ends the session', async () => {
    const { user, refresh, live, app } = await fixture();
    const t0 = await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, user, { opening: { method: 'password' } });
    const t1 = await refresh(t0.refresh_token);
    later(11);
    await expect(refresh(t0.refresh_token)).rejects.toMatchObject({ status: 401 });
    expect(await live(t0.session_id)).toBe(false);
    await expect(refresh(t1.refresh_token)).rejects.toMatchObject({ status: 401 });
  });

  it('a session from before migration 0014: its token rotates once into the session, and reuse of its tokens is judged as before', async () => {
    const { other, userId, refresh, live, app } = await fixture();
    const earlier = await openEarlierSession(deps.db, { appId: app.app_id, userId, now: iso(now), expiresAt: iso(addSeconds(now, REFRESH_TOKEN_SECONDS)), rotated: true });
    await expect(refresh(earlier.token, other.app_id)).rejects.toMatchObject({ status: 401 });
    const [first, second] = await Promise.allSettled([refresh(earlier.token), refresh(earlier.token)]);
    expect([first.status, second.status].sort()).toEqual(['fulfilled', 'rejected']);
    const moved = (first.status === 'fulfilled' ? first.value : (second as PromiseFulfilledResult<Awaited<ReturnType<typeof refresh>>>).value);
    expect(moved.session_id).toBe(earlier.sessionId);
    expect(moved.refresh_token).toHaveLength(73);
    await expect(refresh(earlier.token)).rejects.toMatchObject({ status: 401 }); // rotated just now: refused
    const next = await refresh(moved.refresh_token);
    expect(await live(earlier.sessionId)).toBe(true);

    later(11);
    await expect(refresh(earlier.rotatedToken!)).rejects.toMatchObject({ status: 401 }); // rotated 11 s ago: theft
    expect(await live(earlier.sessionId)).toBe(false);
    await expect(refresh(next.refresh_token)).rejects.toMatchObject({ status: 401 });
  });
});
