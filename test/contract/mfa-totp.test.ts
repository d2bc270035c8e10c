import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, setCookies, startAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { queryDatabase, TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { claimsOf, codeAt, passwordChallenge, userWithTotp, verifyMfa } from '../helpers/mfa.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/mfa.md: TOTP enrollment, sign-in with a second factor (TOTP, recovery code), replay and guess
// limits, on SQLite and PostgreSQL (two nodes on one database for the races).

let env: AuthEnv;
let app: TestApp;
let other: TestApp;
let second: TestServer | undefined;

beforeAll(async () => {
  env = await startAuthServer();
  app = await createApp(env.server, { name: 'Acme MFA' });
  other = await createApp(env.server);
  if (TEST_DB === 'postgres') {
    second = await startServer({ SMTP_URL: env.sink.url, DATABASE_URL: env.server.databaseUrl, MASTER_KEY: env.server.env.MASTER_KEY });
  }
});
afterAll(async () => {
  await second?.stop();
  await env?.stop();
});

/** The other node when there is one: races span processes on PostgreSQL. */
const nodes = () => [env.server, second ?? env.server];
const me = (token: string) => api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });

describe('TOTP enrollment', () => {
  it('enroll: the secret, an otpauth:// URI and an SVG QR code; the secret is sealed at rest', async () => {
    const user = await verifiedUser(env, app);
    const res = await api(env.server, 'POST', '/v1/me/factors/totp', { publishableKey: app.publishable_key, bearer: user.tokens.access_token, body: { friendly_name: 'phone' } });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ type: 'totp', status: 'unverified', friendly_name: 'phone' });
    expect(res.body.totp.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(res.body.totp.uri).toBe(
      `otpauth://totp/Acme%20MFA:${encodeURIComponent(user.email)}?secret=${res.body.totp.secret}&issuer=Acme+MFA&algorithm=SHA1&digits=6&period=30`,
    );
    expect(res.body.totp.qr_code).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
    const [row] = await queryDatabase(env.server.databaseUrl, `select secret_sealed, status from mfa_factors where id = '${res.body.factor_id}'`);
    expect(row!.status).toBe('unverified');
    expect(String(row!.secret_sealed)).not.toContain(res.body.totp.secret);
    // Unconfirmed, it asks nothing at sign-in.
    expect((await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, password: user.password } })).body.access_token).toBeTruthy();
  });

  it('confirm: a wrong code is 400 and changes nothing; the right one gives 10 recovery codes (stored hashed), an aal2 token and a notice', async () => {
    const user = await verifiedUser(env, app);
    const auth = { publishableKey: app.publishable_key, bearer: user.tokens.access_token };
    const enrolled = await api(env.server, 'POST', '/v1/me/factors/totp', { ...auth, body: {} });
    const secret = enrolled.body.totp.secret;
    const wrongCode = codeAt(secret) === '000000' ? '111111' : '000000';
    const wrong = await api(env.server, 'POST', `/v1/me/factors/${enrolled.body.factor_id}/verify`, { ...auth, body: { code: wrongCode } });
    expect(wrong.status).toBe(400);
    expect(Object.keys(wrong.body)).toEqual(['detail', 'code']);
    expect((await api(env.server, 'GET', '/v1/me/factors', auth)).body.factors[0].status).toBe('unverified');

    const ok = await api(env.server, 'POST', `/v1/me/factors/${enrolled.body.factor_id}/verify`, { ...auth, body: { code: codeAt(secret) } });
    expect(ok.status).toBe(200);
    expect(ok.body.factor).toMatchObject({ factor_id: enrolled.body.factor_id, type: 'totp', status: 'verified' });
    expect(ok.body.recovery_codes).toHaveLength(10);
    expect(new Set(ok.body.recovery_codes).size).toBe(10);
    expect(claimsOf(ok.body.access_token)).toMatchObject({ sub: user.userId, sid: user.tokens.session_id, aal: 'aal2', amr: ['email', 'otp'] });
    expect((await me(ok.body.access_token)).status).toBe(200);
    const stored = await queryDatabase(env.server.databaseUrl, `select code_hash from mfa_recovery_codes where user_id = '${user.userId}'`);
    expect(stored).toHaveLength(10);
    for (const code of ok.body.recovery_codes) expect(JSON.stringify(stored)).not.toContain(code.replace('-', ''));
    // The session's refresh keeps aal2.
    const refreshed = await api(env.server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token: user.tokens.refresh_token } });
    expect(claimsOf(refreshed.body.access_token)).toMatchObject({ aal: 'aal2', amr: ['email', 'otp'] });
    const notice = await env.sink.waitFor(user.email, { count: 2 });
    expect(notice.subject).toMatch(/^A second factor was added/);
    expect(notice.text).not.toContain(secret);
    expect((await api(env.server, 'GET', '/v1/me/factors', auth)).body).toMatchObject({ recovery_codes_remaining: 10 });
  });

  it('confirm: 5 wrong codes kill the enrollment (the right code is refused after)', async () => {
    const user = await verifiedUser(env, app);
    const auth = { publishableKey: app.publishable_key, bearer: user.tokens.access_token };
    const enrolled = await api(env.server, 'POST', '/v1/me/factors/totp', { ...auth, body: {} });
    const secret = enrolled.body.totp.secret;
    const wrongCode = [0, 1, 2].map((d) => codeAt(secret, d)).includes('000000') ? '111111' : '000000';
    const path = `/v1/me/factors/${enrolled.body.factor_id}/verify`;
    const answers = await Promise.all(Array.from({ length: 8 }, () => api(env.server, 'POST', path, { ...auth, body: { code: wrongCode } })));
    expect(answers.every((a) => a.status === 400)).toBe(true);
    const late = await api(env.server, 'POST', path, { ...auth, body: { code: codeAt(secret) } });
    expect(late.status).toBe(400);
    const [row] = await queryDatabase(env.server.databaseUrl, `select attempts, status from mfa_factors where id = '${enrolled.body.factor_id}'`);
    expect(row).toMatchObject({ status: 'unverified' });
    expect(Number(row!.attempts)).toBe(5);
  });
});

describe('sign-in with a second factor', () => {
  it('password sign-in answers mfa_required (no session, no cookie); a TOTP code completes it with amr ["pwd","otp"] and aal2', async () => {
    const user = await userWithTotp(env, app);
    const res = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, password: user.password } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ mfa_required: true, mfa_token: expect.any(String), expires_at: expect.any(String), factors: [{ factor_id: user.factorId, type: 'totp', friendly_name: null }] });
    expect(res.headers.get('set-cookie')).toBeNull();
    const done = await verifyMfa(env.server, app, { mfa_token: res.body.mfa_token, code: codeAt(user.secret, 1) });
    expect(done.status).toBe(200);
    expect(Object.keys(done.body).sort()).toEqual(['access_token', 'refresh_token', 'session_id', 'user_id']);
    expect(claimsOf(done.body.access_token)).toMatchObject({ sub: user.userId, amr: ['pwd', 'otp'], aal: 'aal2' });
    expect(Object.keys(setCookies(done.headers))).toEqual(expect.arrayContaining(['__session', '__refresh']));
    expect((await me(done.body.access_token)).status).toBe(200);
    // The challenge is single use.
    expect((await verifyMfa(env.server, app, { mfa_token: res.body.mfa_token, code: codeAt(user.secret, 1) })).status).toBe(401);
  });

  it('a code sign-in (magic link code) asks for the second factor too', async () => {
    const user = await userWithTotp(env, app);
    expect((await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email } })).body.status).toBe('magic_link_sent');
    const code = await codeFor(env.sink, user.email, 3);
    const res = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email: user.email, code } });
    expect(res.status).toBe(200);
    expect(res.body.mfa_required).toBe(true);
    expect(res.body.access_token).toBeUndefined();
    const done = await verifyMfa(env.server, app, { mfa_token: res.body.mfa_token, code: codeAt(user.secret, 1) });
    expect(claimsOf(done.body.access_token)).toMatchObject({ amr: ['email', 'otp'], aal: 'aal2' });
  });

  it('replay refused: a code (a time step) accepted once is refused on the next challenge, on any node', async () => {
    const user = await userWithTotp(env, app);
    const code = codeAt(user.secret, 1);
    const first = await verifyMfa(env.server, app, { mfa_token: await passwordChallenge(env.server, app, user.email, user.password), code });
    expect(first.status).toBe(200);
    const again = await verifyMfa(nodes()[1], app, { mfa_token: await passwordChallenge(env.server, app, user.email, user.password), code });
    expect(again.status).toBe(400);
    expect(again.body.detail).toMatch(/already used/);
    // The confirming code's step is spent too.
    const confirmStep = await verifyMfa(env.server, app, { mfa_token: await passwordChallenge(env.server, app, user.email, user.password), code: codeAt(user.secret, -1) });
    expect(confirmStep.status).toBe(400);
  });

  it('one code raced on two challenges across nodes: exactly one session', async () => {
    const user = await userWithTotp(env, app);
    const tokens = await Promise.all([0, 1, 2, 3].map(() => passwordChallenge(env.server, app, user.email, user.password)));
    const code = codeAt(user.secret, 1);
    const answers = await Promise.all(tokens.map((t, i) => verifyMfa(nodes()[i % 2]!, app, { mfa_token: t, code })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    expect(answers.filter((a) => a.status === 400)).toHaveLength(3);
  });

  it('5 wrong codes per challenge, counted across nodes however many arrive at once: then the right code is 401', async () => {
    const user = await userWithTotp(env, app);
    const token = await passwordChallenge(env.server, app, user.email, user.password);
    const wrongCode = [-1, 0, 1, 2].map((d) => codeAt(user.secret, d)).includes('000000') ? '111111' : '000000';
    const answers = await Promise.all(Array.from({ length: 12 }, (_, i) => verifyMfa(nodes()[i % 2]!, app, { mfa_token: token, code: wrongCode })));
    // The 5th wrong code also locks the factor (mfa-lockout.test.ts): a guess that comes after it, while the
    // challenge still looked live, is refused by the lock (429) rather than by the spent challenge (401).
    expect(answers.filter((a) => a.status === 400)).toHaveLength(4);
    expect(answers.filter((a) => a.status === 401 || a.status === 429)).toHaveLength(8);
    const [row] = await queryDatabase(env.server.databaseUrl, `select attempts from mfa_challenges where user_id = '${user.userId}'`);
    expect(Number(row!.attempts)).toBe(5);
    expect((await verifyMfa(env.server, app, { mfa_token: token, code: codeAt(user.secret, 1) })).status).toBe(401);
  });

  it('a recovery code completes the challenge once (amr "recovery"); raced on two nodes, one wins', async () => {
    const user = await userWithTotp(env, app);
    const [code] = user.recoveryCodes;
    const done = await verifyMfa(env.server, app, { mfa_token: await passwordChallenge(env.server, app, user.email, user.password), recovery_code: code!.toUpperCase() });
    expect(done.status).toBe(200);
    expect(claimsOf(done.body.access_token)).toMatchObject({ amr: ['pwd', 'recovery'], aal: 'aal2' });
    expect((await verifyMfa(env.server, app, { mfa_token: await passwordChallenge(env.server, app, user.email, user.password), recovery_code: code })).status).toBe(400);

    const racing = user.recoveryCodes[1]!;
    const tokens = await Promise.all([0, 1, 2, 3, 4, 5].map(() => passwordChallenge(env.server, app, user.email, user.password)));
    const answers = await Promise.all(tokens.map((t, i) => verifyMfa(nodes()[i % 2]!, app, { mfa_token: t, recovery_code: racing })));
    expect(answers.filter((a) => a.status === 200)).toHaveLength(1);
    const [row] = await queryDatabase(env.server.databaseUrl, `select count(*) as n from mfa_recovery_codes where user_id = '${user.userId}' and used_at is null`);
    expect(Number(row!.n)).toBe(8);
  });

  it('bad input is a clear 400 that spends nothing; an unknown mfa_token is 401', async () => {
    const user = await userWithTotp(env, app);
    const token = await passwordChallenge(env.server, app, user.email, user.password);
    for (const body of [{ mfa_token: token }, { mfa_token: token, code: '12ab56' }, { mfa_token: token, code: '123456', recovery_code: 'x' }, { code: '123456' }]) {
      const res = await verifyMfa(env.server, app, body);
      expect(res.status).toBe(400);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
    expect((await verifyMfa(env.server, app, { mfa_token: 'mfa_nothing', code: '123456' })).status).toBe(401);
    expect((await verifyMfa(env.server, app, { mfa_token: token, code: codeAt(user.secret, 1) })).status).toBe(200);
  });
});

describe('the mfa_verify_ip window', () => {
  it('30 guesses a minute per IP and app, however many arrive at once on both nodes: the rest are 429 with Retry-After; another app keeps its own', async () => {
    // The suite runs without limits; these nodes have the built-in window (on PostgreSQL two of them, on one
    // database, counting in Redis).
    const first = await startServer({ RATE_LIMITS: 'mfa_verify_ip=30/60', SMTP_URL: env.sink.url });
    const nodes = [first];
    try {
      if (TEST_DB === 'postgres') nodes.push(await startServer({ ...first.env, PORT: '' }));
      const limitedApp = await createApp(first);
      const elsewhere = await createApp(first);
      const user = await userWithTotp({ ...env, server: first }, limitedApp);
      const token = await passwordChallenge(first, limitedApp, user.email, user.password);
      const guesses = await Promise.all(
        Array.from({ length: 36 }, (_, i) => verifyMfa(nodes[i % nodes.length]!, limitedApp, { mfa_token: `mfa_guess_${i}`, code: '123456' })),
      );
      const statuses = guesses.map((r) => r.status);
      expect(statuses.filter((s) => s === 401)).toHaveLength(30);
      expect(statuses.filter((s) => s === 429)).toHaveLength(6);
      const refused = guesses.find((r) => r.status === 429)!;
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(Object.keys(refused.body)).toEqual(['detail', 'code']);
      // While the window is full a right code is refused too; another app's window is its own.
      for (const node of nodes) expect((await verifyMfa(node, limitedApp, { mfa_token: token, code: codeAt(user.secret, 1) })).status).toBe(429);
      expect((await verifyMfa(first, elsewhere, { mfa_token: 'mfa_guess', code: '123456' })).status).toBe(401);
    } finally {
      for (const node of nodes.reverse()) await node.stop();
    }
  });
});

describe('app isolation', () => {
  it("another app's key cannot complete a challenge (401), nor see or change the user's factors", async () => {
    const user = await userWithTotp(env, app);
    const token = await passwordChallenge(env.server, app, user.email, user.password);
    expect((await verifyMfa(env.server, other, { mfa_token: token, code: codeAt(user.secret, 1) })).status).toBe(401);
    const elsewhere = { publishableKey: other.publishable_key, bearer: user.accessToken };
    expect((await api(env.server, 'GET', '/v1/me/factors', elsewhere)).status).toBe(401);
    expect((await api(env.server, 'POST', '/v1/me/factors/totp', { ...elsewhere, body: {} })).status).toBe(401);
    const stranger = await verifiedUser(env, app);
    const strangerAuth = { publishableKey: app.publishable_key, bearer: stranger.tokens.access_token };
    expect((await api(env.server, 'PATCH', `/v1/me/factors/${user.factorId}`, { ...strangerAuth, body: { friendly_name: 'mine' } })).status).toBe(404);
    expect((await api(env.server, 'DELETE', `/v1/me/factors/${user.factorId}`, strangerAuth)).status).toBe(404);
    expect((await api(env.server, 'GET', `/v1/users/${user.userId}/factors`, { bearer: other.secret_key })).status).toBe(404);
    expect((await api(env.server, 'DELETE', `/v1/users/${user.userId}/factors`, { bearer: other.secret_key })).status).toBe(404);
    // Nothing changed: the challenge still completes in its own app.
    expect((await verifyMfa(env.server, app, { mfa_token: token, code: codeAt(user.secret, 1) })).status).toBe(200);
  });
});

