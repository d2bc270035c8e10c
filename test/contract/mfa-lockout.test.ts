import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { execDatabase, queryDatabase, TEST_DB } from '../helpers/db.js';
import { createApp, type TestApp } from '../helpers/fixtures.js';
import { codeAt, passwordChallenge, userWithTotp, verifyMfa } from '../helpers/mfa.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/mfa.md, "Wrong codes": wrong TOTP codes count on the factor across MFA challenges (issue 45,
// finding 6), on SQLite and PostgreSQL (two nodes on one database for the race). RATE_LIMITS=off: what
// refuses here is the factor's lock, not the per-IP limit.

let env: AuthEnv;
let app: TestApp;
let second: TestServer | undefined;

beforeAll(async () => {
  env = await startAuthServer({ RATE_LIMITS: 'off' });
  app = await createApp(env.server, { name: 'Lockout' });
  if (TEST_DB === 'postgres') {
    second = await startServer({ SMTP_URL: env.sink.url, DATABASE_URL: env.server.databaseUrl, MASTER_KEY: env.server.env.MASTER_KEY, RATE_LIMITS: 'off' });
  }
});
afterAll(async () => {
  await second?.stop();
  await env?.stop();
});

const nodes = () => [env.server, second ?? env.server];
/** A code that no step the server accepts (now ± 1, and the next) gives. */
const wrongCodeFor = (secret: string) => ([-1, 0, 1, 2].map((d) => codeAt(secret, d)).includes('000000') ? '111111' : '000000');
const factorRow = async (factorId: string) => {
  const [row] = await queryDatabase(env.server.databaseUrl, `select failed_codes, locked_until from mfa_factors where id = '${factorId}'`);
  return { failed: Number(row!.failed_codes), lockedFor: row!.locked_until === null ? 0 : (Date.parse(String(row!.locked_until)) - Date.now()) / 1000 };
};
/** Ends the lock now, as if its time had passed (the server's clock is real time). */
const endLock = (factorId: string) => execDatabase(env.server.databaseUrl, `update mfa_factors set locked_until = '${new Date(Date.now() - 1000).toISOString()}' where id = '${factorId}'`);

describe('wrong TOTP codes are counted on the factor, across challenges', () => {
  it('30 guesses over six challenges: the 5th wrong code in a row locks the factor, and every later code is 429, the right one too', async () => {
    const user = await userWithTotp(env, app);
    const wrong = wrongCodeFor(user.secret);
    const answers: { status: number; detail: string; retryAfter: string | null; right: boolean }[] = [];
    for (let c = 0; c < 6; c++) {
      // A fresh password sign-in each time: before, each one gave five more tries.
      const token = await passwordChallenge(env.server, app, user.email, user.password);
      for (let g = 0; g < 5; g++) {
        const right = c > 0 && g === 2;
        const res = await verifyMfa(env.server, app, { mfa_token: token, code: right ? codeAt(user.secret, 1) : wrong });
        answers.push({ status: res.status, detail: res.body.detail, retryAfter: res.headers.get('retry-after'), right });
      }
    }
    expect(answers.map((a) => a.status)).toEqual([400, 400, 400, 400, 401, ...Array(25).fill(429)]);
    // The right code's refusal is the wrong code's: nothing tells them apart.
    const refusals = answers.slice(5);
    for (const refusal of refusals) {
      expect(refusal.detail).toMatch(/^too many wrong codes: this authenticator refuses codes for \d+ seconds?; sign in with a recovery code or a passkey/);
      expect(Number(refusal.retryAfter)).toBeGreaterThan(0);
      expect(Number(refusal.retryAfter)).toBeLessThanOrEqual(60);
    }
    expect(new Set(refusals.filter((r) => r.right).map((r) => r.detail.replace(/\d+/, 'N')))).toEqual(new Set(refusals.filter((r) => !r.right).map((r) => r.detail.replace(/\d+/, 'N'))));
    const locked = await factorRow(user.factorId);
    expect(locked.failed).toBe(5);
    expect(locked.lockedFor).toBeGreaterThan(40);
    expect(locked.lockedFor).toBeLessThanOrEqual(60);

    // One notice for the run, with no code, secret or token in it.
    const notice = await env.sink.waitFor(user.email, { count: 3 });
    expect(notice.subject).toBe('Wrong authenticator codes were entered for your account on Lockout');
    expect(notice.text).not.toMatch(/\d{6}|mfa_|otpauth|secret/i);
    expect(notice.text).not.toContain(user.secret);

    // Once the minute is over: one guess, and a wrong one locks for 2 minutes (the next would be 4).
    await endLock(user.factorId);
    const token = await passwordChallenge(env.server, app, user.email, user.password);
    expect((await verifyMfa(env.server, app, { mfa_token: token, code: wrong })).status).toBe(400);
    const longer = await factorRow(user.factorId);
    expect(longer.failed).toBe(6);
    expect(longer.lockedFor).toBeGreaterThan(100);
    expect(longer.lockedFor).toBeLessThanOrEqual(120);
    expect((await verifyMfa(env.server, app, { mfa_token: token, code: codeAt(user.secret, 1) })).status).toBe(429);

    // After it, the right code signs in and ends the run; a recovery code signs in even while locked.
    await endLock(user.factorId);
    const done = await verifyMfa(env.server, app, { mfa_token: token, code: codeAt(user.secret, 1) });
    expect(done.status).toBe(200);
    expect(await factorRow(user.factorId)).toEqual({ failed: 0, lockedFor: 0 });
  });

  it('a recovery code signs in while the authenticator is locked; the lock stays', async () => {
    const user = await userWithTotp(env, app);
    const wrong = wrongCodeFor(user.secret);
    const token = await passwordChallenge(env.server, app, user.email, user.password);
    for (let g = 0; g < 5; g++) await verifyMfa(env.server, app, { mfa_token: token, code: wrong });
    const again = await passwordChallenge(env.server, app, user.email, user.password);
    expect((await verifyMfa(env.server, app, { mfa_token: again, code: codeAt(user.secret, 1) })).status).toBe(429);
    expect((await verifyMfa(env.server, app, { mfa_token: again, recovery_code: user.recoveryCodes[0] })).status).toBe(200);
    expect((await factorRow(user.factorId)).failed).toBe(5);
  });

  it('20 wrong codes at once over four challenges, on both nodes: exactly 5 are counted, the other 15 are 429', async () => {
    const user = await userWithTotp(env, app);
    const wrong = wrongCodeFor(user.secret);
    const tokens = await Promise.all(Array.from({ length: 4 }, () => passwordChallenge(env.server, app, user.email, user.password)));
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => verifyMfa(nodes()[i % 2]!, app, { mfa_token: tokens[i % 4], code: wrong })));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 400 || s === 401)).toHaveLength(5);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
    expect((await factorRow(user.factorId)).failed).toBe(5);
    const [guesses] = await queryDatabase(env.server.databaseUrl, `select sum(attempts) as n from mfa_challenges where user_id = '${user.userId}'`);
    expect(Number(guesses!.n)).toBe(5);
  });
});
