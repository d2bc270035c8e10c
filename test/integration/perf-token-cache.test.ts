import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { addSeconds, type Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { ACCESS_TOKEN_SECONDS } from '../../src/services/apps/keys.js';
import { openInProcess } from '../helpers/in-process.js';

// The verified-token cache (issue 14) is exact: a token verified once is not verified again, but what
// changes with time still applies to it: its expiry, and whether the JWKS still publishes its key.
let deps: Deps;
let dir: string;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-05-01T00:00:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, dir, close } = await openInProcess(clock, () => ({ RATE_LIMITS: 'off' })));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });
const claims = { sub: '00000000-0000-4000-8000-000000000003', sid: '00000000-0000-4000-8000-000000000004', email: 'c@example.com', email_verified: true };

describe('verified-token cache', () => {
  it('a verified token is refused once expired, as on its first verification', async () => {
    const tenant = await createTenant(appsDeps(), 'T');
    const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
    const token = await deps.keys.signAccessToken(app.app_id, claims);
    expect((await deps.keys.verifyAccessToken(app.app_id, token))?.sub).toBe(claims.sub);
    expect((await deps.keys.verifyAccessToken(app.app_id, token))?.sid).toBe(claims.sid);
    now = addSeconds(now, ACCESS_TOKEN_SECONDS - 1);
    expect(await deps.keys.verifyAccessToken(app.app_id, token)).toBeDefined();
    now = addSeconds(now, 1);
    expect(await deps.keys.verifyAccessToken(app.app_id, token)).toBeUndefined();
  });

  it('a verified token is refused for another app (the audience is not taken from the cache)', async () => {
    const tenant = await createTenant(appsDeps(), 'T2');
    const a = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
    const b = await createApp(appsDeps(), tenant.tenant_id, 'B', {});
    const token = await deps.keys.signAccessToken(a.app_id, claims);
    expect(await deps.keys.verifyAccessToken(a.app_id, token)).toBeDefined();
    expect(await deps.keys.verifyAccessToken(b.app_id, token)).toBeUndefined();
    expect(await deps.keys.verifyAccessToken(a.app_id, token)).toBeDefined();
  });

  it('a verified token is refused once the JWKS stops publishing its kid', async () => {
    const tenant = await createTenant(appsDeps(), 'T3');
    const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
    const token = await deps.keys.signAccessToken(app.app_id, claims);
    expect(await deps.keys.verifyAccessToken(app.app_id, token)).toBeDefined();
    // The key as if retired long ago: no longer in the JWKS. The key cache re-reads a current key's
    // status after 30 s of real time (its documented rule, KEY_STATUS_RECHECK_MS, read from Date.now()):
    // the cached token is still accepted just before, and refused past it.
    await deps.db.updateTable('signing_keys').set({ retired_at: '2000-01-01T00:00:00.000Z' }).where('app_id', '=', app.app_id).execute();
    expect(await deps.keys.jwks({ appId: app.app_id })).toEqual([]);
    const checkedBy = Date.now();
    const now = vi.spyOn(Date, 'now');
    try {
      now.mockReturnValue(checkedBy + 28_000);
      expect(await deps.keys.verifyAccessToken(app.app_id, token)).toBeDefined();
      now.mockReturnValue(checkedBy + 31_000);
      expect(await deps.keys.verifyAccessToken(app.app_id, token)).toBeUndefined();
    } finally {
      now.mockRestore();
    }
  });
});
