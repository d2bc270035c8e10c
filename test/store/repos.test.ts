import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import { createApp, createTenant } from '../../src/services/apps/apps.js';
import { deleteSpentChallengesExpiredBefore, insertSpentChallenge } from '../../src/store/repos/hashcash-spent.js';
import { acquireJobLock, findJobLock, renewJobLock } from '../../src/store/repos/job-locks.js';
import { findLiveChallenge, insertChallenge, setWebauthnChallenge } from '../../src/store/repos/mfa-challenges.js';
import { findFactor, insertFactor, recordPasskeyUse } from '../../src/store/repos/mfa-factors.js';
import { deleteExpiredOAuthStates, findOAuthStateByHash, insertOAuthState } from '../../src/store/repos/oauth-states.js';
import { replaceSealedTotpSecret } from '../../src/store/repos/sealed-secrets.js';
import { insertUser } from '../../src/store/repos/users.js';
import { useInProcess } from '../helpers/in-process.js';

// The store suite: repository functions called in process on the run's real database (SQLite and
// PostgreSQL, both migrated up from empty), for the statements no HTTP file reaches on PostgreSQL: the
// clean-up of expired rows, a lease renewed mid-run, a passkey's challenge and counter, the re-sealing of
// TOTP secrets. test/run.mjs fails a PostgreSQL pass in which a repository function was never called.
const now = new Date('2026-04-01T00:00:00.000Z');
const clock: Clock = { now: () => now };

const { deps, appsDeps } = useInProcess(clock);

async function appWithUser() {
  const tenant = await createTenant(appsDeps(), 'T');
  const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
  const other = await createApp(appsDeps(), tenant.tenant_id, 'B', {});
  const userId = randomUUID();
  await insertUser(deps.db, { id: userId, app_id: app.app_id, email: `${userId}@example.com`, email_normalized: `${userId}@example.com`, email_verified: 1, password_hash: null, is_bot: 0, public_key: null, created_at: iso(now), updated_at: iso(now) });
  return { appId: app.app_id, otherAppId: other.app_id, userId };
}

function factor(appId: string, userId: string, type: 'totp' | 'webauthn', fields: Record<string, unknown> = {}) {
  return { id: randomUUID(), app_id: appId, user_id: userId, type, status: 'verified' as const, friendly_name: null, secret_sealed: null, last_step: null, credential_id: null, public_key: null, sign_count: null, transports: null, created_at: iso(now), updated_at: iso(now), last_used_at: null, ...fields };
}

describe('store: clean-up of expired rows', () => {
  it('spent hashcash challenges: only those of the app that expired before the bound go', async () => {
    const { appId, otherAppId } = await appWithUser();
    expect(await insertSpentChallenge(deps.db, appId, 'a'.repeat(64), iso(addSeconds(now, -10)))).toBe(true);
    expect(await insertSpentChallenge(deps.db, appId, 'b'.repeat(64), iso(addSeconds(now, 10)))).toBe(true);
    expect(await insertSpentChallenge(deps.db, otherAppId, 'c'.repeat(64), iso(addSeconds(now, -10)))).toBe(true);
    expect(await deleteSpentChallengesExpiredBefore(deps.db, appId, iso(now))).toBe(1);
    expect(await deleteSpentChallengesExpiredBefore(deps.db, appId, iso(now))).toBe(0);
    // The one still live is still spent: inserting it again is refused (single use).
    expect(await insertSpentChallenge(deps.db, appId, 'b'.repeat(64), iso(addSeconds(now, 10)))).toBe(false);
    expect(await deleteSpentChallengesExpiredBefore(deps.db, otherAppId, iso(now))).toBe(1);
  });

  it('OAuth states: those that expired before the bound go, the live one stays', async () => {
    const { appId } = await appWithUser();
    const state = (hash: string, expiresAt: Date) => ({ state_hash: hash, app_id: appId, provider: 'google' as const, code_verifier_sealed: 'sealed', nonce: 'n', redirect_url: 'https://app.example/cb', expires_at: iso(expiresAt), used_at: null, created_at: iso(now), browser_binding_hash: null });
    const [old, live] = [randomUUID().replaceAll('-', ''), randomUUID().replaceAll('-', '')];
    await insertOAuthState(deps.db, state(old, addSeconds(now, -1)));
    await insertOAuthState(deps.db, state(live, addSeconds(now, 600)));
    expect(await deleteExpiredOAuthStates(deps.db, iso(now))).toBeGreaterThanOrEqual(1);
    expect(await findOAuthStateByHash(deps.db, old)).toBeUndefined();
    expect(await findOAuthStateByHash(deps.db, live)).toMatchObject({ app_id: appId });
  });
});

describe('store: job leases', () => {
  it('the holder renews its lease; another holder cannot', async () => {
    const name = `job-${randomUUID()}`;
    expect(await acquireJobLock(deps.db, name, 'holder-1', iso(now), iso(addSeconds(now, 60)))).toBe(true);
    expect(await renewJobLock(deps.db, name, 'holder-2', iso(addSeconds(now, 600)))).toBe(false);
    expect(await findJobLock(deps.db, name)).toEqual({ holder: 'holder-1', locked_until: iso(addSeconds(now, 60)) });
    expect(await renewJobLock(deps.db, name, 'holder-1', iso(addSeconds(now, 120)))).toBe(true);
    expect(await findJobLock(deps.db, name)).toEqual({ holder: 'holder-1', locked_until: iso(addSeconds(now, 120)) });
    expect(await renewJobLock(deps.db, `job-${randomUUID()}`, 'holder-1', iso(addSeconds(now, 120)))).toBe(false);
  });
});

describe('store: passkeys and TOTP secrets', () => {
  it("a second-step challenge keeps its WebAuthn challenge; another app's id changes nothing", async () => {
    const { appId, otherAppId, userId } = await appWithUser();
    const id = randomUUID();
    const tokenHash = randomUUID().replaceAll('-', '');
    await insertChallenge(deps.db, { id, appId, userId, tokenHash, amr: 'pwd', method: 'password', provider: null, now: iso(now), expiresAt: iso(addSeconds(now, 300)) });
    await setWebauthnChallenge(deps.db, otherAppId, id, 'elsewhere');
    expect(await findLiveChallenge(deps.db, appId, tokenHash, iso(now))).toMatchObject({ id, webauthn_challenge: null });
    await setWebauthnChallenge(deps.db, appId, id, 'challenge-b64url');
    expect(await findLiveChallenge(deps.db, appId, tokenHash, iso(now))).toMatchObject({ id, webauthn_challenge: 'challenge-b64url' });
  });

  it("a passkey's use records its counter and time, in its app only", async () => {
    const { appId, otherAppId, userId } = await appWithUser();
    const passkey = factor(appId, userId, 'webauthn', { credential_id: randomUUID(), public_key: 'pk', sign_count: 0 });
    await insertFactor(deps.db, passkey);
    await recordPasskeyUse(deps.db, otherAppId, passkey.id, 99, iso(addSeconds(now, 5)));
    expect(await findFactor(deps.db, appId, userId, passkey.id)).toMatchObject({ sign_count: 0, last_used_at: null });
    await recordPasskeyUse(deps.db, appId, passkey.id, 7, iso(addSeconds(now, 5)));
    expect(await findFactor(deps.db, appId, userId, passkey.id)).toMatchObject({ sign_count: 7, last_used_at: iso(addSeconds(now, 5)) });
  });

  it('a TOTP secret is re-sealed only while it still holds the value read (a conditional write)', async () => {
    const { appId, userId } = await appWithUser();
    const totp = factor(appId, userId, 'totp', { secret_sealed: 'sealed-old', last_step: 1 });
    await insertFactor(deps.db, totp);
    expect(await replaceSealedTotpSecret(deps.db, totp.id, 'sealed-other', 'sealed-new')).toBe(false);
    expect(await replaceSealedTotpSecret(deps.db, totp.id, 'sealed-old', 'sealed-new')).toBe(true);
    expect(await replaceSealedTotpSecret(deps.db, totp.id, 'sealed-old', 'sealed-newer')).toBe(false);
    expect(await findFactor(deps.db, appId, userId, totp.id)).toMatchObject({ secret_sealed: 'sealed-new' });
  });
});
