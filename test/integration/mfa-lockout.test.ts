import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import { stepAt, totpCode } from '../../src/crypto/totp.js';
import type { Deps } from '../../src/deps.js';
import { ApiError } from '../../src/errors.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { openOutboxMail } from '../../src/services/mail/outbox.js';
import { confirmTotp, enrollTotp } from '../../src/services/mfa/factors.js';
import { lockSeconds, MAX_LOCK_SECONDS } from '../../src/services/mfa/lockout.js';
import { finishSignIn, verifyMfa } from '../../src/services/mfa/sign-in.js';
import { findApplication } from '../../src/store/repos/applications.js';
import { findUserById, insertUser } from '../../src/store/repos/users.js';
import { openInProcess } from '../helpers/in-process.js';

// docs/mfa.md, "Wrong codes", in-process on the run's database with the clock the test moves: the lock
// grows 1, 2, 4 ... minutes to the hour, ends on its own, and the owner is emailed once per run of wrong
// codes (no mail worker runs here: the queued notices stay in the outbox to be read).
let deps: Deps;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-06-01T00:00:10.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, close } = await openInProcess(clock, () => ({ RATE_LIMITS: 'off' })));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });

async function userWithTotp() {
  const tenant = await createTenant(appsDeps(), 'T');
  const created = await createApp(appsDeps(), tenant.tenant_id, 'Lockout', {});
  const app = (await findApplication(deps.db, created.app_id))!;
  const userId = crypto.randomUUID();
  const email = `${userId}@example.com`;
  await insertUser(deps.db, { id: userId, app_id: app.id, email, email_normalized: email, email_verified: 1, password_hash: null, is_bot: 0, public_key: null, created_at: iso(now), updated_at: iso(now) });
  const user = (await findUserById(deps.db, app.id, userId))!;
  const session = { userId, sessionId: crypto.randomUUID(), authTime: Math.floor(now.getTime() / 1000), amr: ['pwd'], aal: 'aal1' as const };
  const enrolled = await enrollTotp(deps, app, session, null);
  await confirmTotp(deps, app, session, enrolled.factor_id, totpCode(enrolled.totp.secret, stepAt(now)));
  const challenge = async () => (await finishSignIn(deps, app, user, ['pwd'], { method: 'password' })).mfa!.mfa_token;
  const attempt = (token: string, code: string) => verifyMfa(deps, app, token, { code }).then(() => 200, (e: ApiError) => e.status);
  const notices = async () => {
    const rows = await deps.db.selectFrom('mail_outbox').select(['id', 'sealed']).where('app_id', '=', app.id).orderBy('created_at').execute();
    return rows.map((r) => openOutboxMail(deps.masterKeys, r.id, r.sealed)).filter((m) => m.subject.startsWith('Wrong authenticator codes'));
  };
  const locked = async () => (await deps.db.selectFrom('mfa_factors').select(['failed_codes', 'locked_until']).where('id', '=', enrolled.factor_id).executeTakeFirstOrThrow());
  return { secret: enrolled.totp.secret, challenge, attempt, notices, locked };
}

describe('the lock of a TOTP factor over time', () => {
  it('lockSeconds: none before the 5th wrong code, then 1 minute doubling to the hour', () => {
    expect([1, 4, 5, 6, 7, 8, 9, 10, 11, 40].map(lockSeconds)).toEqual([0, 0, 60, 120, 240, 480, 960, 1920, MAX_LOCK_SECONDS, MAX_LOCK_SECONDS]);
  });

  it('grows with each wrong code after it ends, ends on its own, and emails the owner once per run', async () => {
    const user = await userWithTotp();
    const wrong = [-1, 0, 1, 2, 3].map((d) => totpCode(user.secret, stepAt(now) + d)).includes('000000') ? '111111' : '000000';
    const token = await user.challenge();
    for (let g = 0; g < 4; g++) expect(await user.attempt(token, wrong)).toBe(400);
    expect(await user.notices()).toHaveLength(0);
    expect(await user.attempt(token, wrong)).toBe(401); // the challenge's last try, and the factor's 5th
    expect(await user.notices()).toHaveLength(1);

    // Each lock refuses until it ends, then takes one guess; a wrong one locks for twice as long, up to the hour.
    for (const seconds of [60, 120, 240, 480, 960, 1920, 3600, 3600]) {
      const started = now;
      expect((await user.locked()).locked_until).toBe(iso(addSeconds(started, seconds)));
      now = addSeconds(started, seconds - 1);
      const token = await user.challenge();
      expect(await user.attempt(token, totpCode(user.secret, stepAt(now)))).toBe(429);
      now = addSeconds(started, seconds);
      expect(await user.attempt(token, wrong)).toBe(400);
    }
    expect((await user.locked()).failed_codes).toBe(13);
    expect(await user.notices()).toHaveLength(1);

    // The right code once the lock is over signs in and ends the run: the next run's 5th wrong code emails again.
    now = addSeconds(now, 3600);
    expect(await user.attempt(await user.challenge(), totpCode(user.secret, stepAt(now)))).toBe(200);
    expect(await user.locked()).toEqual({ failed_codes: 0, locked_until: null });
    const next = await user.challenge();
    for (let g = 0; g < 5; g++) await user.attempt(next, wrong);
    expect(await user.notices()).toHaveLength(2);
  });
});
