import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, setCookies, signUp, startAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { execDatabase, queryDatabase, TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';
import type { SmtpSink } from '../helpers/smtp-sink.js';

// docs/account.md: password reset. POST /v1/password_resets answers the same for every email;
// POST /v1/password_resets/confirm follows the rules of codes (sections 4 and 8).

let env: AuthEnv;
let app: TestApp;
let other: TestApp;
let second: TestServer | undefined;
const ORIGIN = 'http://localhost:3000';

beforeAll(async () => {
  env = await startAuthServer({ TRUST_PROXY: 'true' });
  app = await createApp(env.server, { args: ['--verification-method', 'both', '--allowed-origin', ORIGIN] });
  other = await createApp(env.server, { args: ['--verification-method', 'both', '--allowed-origin', 'http://127.0.0.1:4000'] });
  // On PostgreSQL a second node on the same database takes half the guesses: the race spans processes.
  if (TEST_DB === 'postgres') {
    second = await startServer({ TRUST_PROXY: 'true', SMTP_URL: env.sink.url, DATABASE_URL: env.server.databaseUrl, MASTER_KEY: env.server.env.MASTER_KEY });
  }
});
afterAll(async () => {
  await second?.stop();
  await env?.stop();
});

const password = 'correct horse battery';
const newPassword = 'a brand new password';

const ask = (email: string, extra: Record<string, unknown> = {}, target: TestApp = app) =>
  api(env.server, 'POST', '/v1/password_resets', { publishableKey: target.publishable_key, body: { email, ...extra } });
const confirm = (body: Record<string, unknown>, options: { ip?: string; server?: TestServer; target?: TestApp } = {}) =>
  api(options.server ?? env.server, 'POST', '/v1/password_resets/confirm', {
    publishableKey: (options.target ?? app).publishable_key,
    body,
    headers: { 'x-forwarded-for': options.ip ?? '203.0.113.5' },
  });
const signIn = (email: string, pw: string, target: TestApp = app) =>
  api(env.server, 'POST', '/v1/signins', { publishableKey: target.publishable_key, body: { email, password: pw } });
const me = (token: string, target: TestApp = app) => api(env.server, 'GET', '/v1/me', { publishableKey: target.publishable_key, bearer: token });

/** The reset link in the newest reset email to `email`. */
async function resetLink(sink: SmtpSink, email: string, count?: number): Promise<URL> {
  const mail = await sink.waitFor(email, { count });
  const match = /https?:\/\/\S+[?&]reset_token=[^\s<>"]+/.exec(mail.text);
  if (!match) throw new Error(`no reset link in:\n${mail.text}`);
  return new URL(match[0]);
}

/** Six-digit codes other than `right`, all distinct. */
function wrongCodes(right: string, count: number): string[] {
  const codes: string[] = [];
  for (let n = 0; codes.length < count; n++) {
    const code = String((Number(right) + 1 + n * 7919) % 1_000_000).padStart(6, '0');
    if (code !== right && !codes.includes(code)) codes.push(code);
  }
  return codes;
}

describe('15 POST /v1/password_resets', () => {
  it('15 password reset: the code sets the new password, signs in with cookies and revokes every other session', async () => {
    const user = await verifiedUser(env, app);
    const otherSession = await signIn(user.email, password);
    expect(otherSession.status).toBe(200);
    const asked = await ask(user.email);
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ status: 'reset_sent' });
    const mail = await env.sink.waitFor(user.email, { count: 2 });
    expect(mail.subject).toMatch(/^Reset your password for/);
    const code = await codeFor(env.sink, user.email, 2);

    const done = await confirm({ email: user.email, code, new_password: newPassword });
    expect(done.status).toBe(200);
    expect(Object.keys(done.body).sort()).toEqual(['access_token', 'refresh_token', 'session_id', 'user_id']);
    expect(done.body.user_id).toBe(user.userId);
    const cookies = setCookies(done.headers);
    expect(cookies.__session?.value).toBe(done.body.access_token);
    expect(cookies.__refresh?.value).toBe(done.body.refresh_token);

    expect((await me(done.body.access_token)).body).toMatchObject({ email: user.email, email_verified: true });
    expect((await me(user.tokens.access_token)).status).toBe(401);
    expect((await me(otherSession.body.access_token)).status).toBe(401);
    expect((await signIn(user.email, password)).status).toBe(401);
    expect((await signIn(user.email, newPassword)).status).toBe(200);
    // The code was single-use.
    expect((await confirm({ email: user.email, code, new_password: 'yet another password' })).status).toBe(400);
    // A password change is announced, without any secret in the notice.
    const notice = await env.sink.waitFor(user.email, { count: 3 });
    expect(notice.subject).toMatch(/^Your password was changed/);
    expect(notice.text).not.toMatch(/\b\d{6}\b|token|newPassword|a brand new password/);
  });

  it('15 the link goes to the allow-listed redirect_url with ?reset_token=, and the token works once', async () => {
    const user = await verifiedUser(env, app);
    expect((await ask(user.email, { redirect_url: `${ORIGIN}/reset?from=mail` })).status).toBe(200);
    const link = await resetLink(env.sink, user.email, 2);
    expect(link.origin).toBe(ORIGIN);
    expect(link.pathname).toBe('/reset');
    expect(link.searchParams.get('from')).toBe('mail');
    const token = link.searchParams.get('reset_token')!;
    const done = await confirm({ reset_token: token, new_password: newPassword });
    expect(done.status).toBe(200);
    expect((await signIn(user.email, newPassword)).status).toBe(200);
    expect((await confirm({ reset_token: token, new_password: 'another new password' })).status).toBe(400);
  });

  it("15 without redirect_url the link lands on the app's first origin", async () => {
    const user = await verifiedUser(env, app);
    await ask(user.email);
    const link = await resetLink(env.sink, user.email, 2);
    expect(`${link.origin}${link.pathname}`).toBe(`${ORIGIN}/`);
  });

  it('15 no oracle: the same status and body for a user with a password, an unknown email and a password-less user', async () => {
    const passwordless = uniqueEmail('nopw');
    expect((await api(env.server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: passwordless } })).status).toBe(201);
    const unknown = uniqueEmail('nobody');
    const user = await verifiedUser(env, app);
    const answers = [await ask(unknown), await ask(passwordless), await ask(user.email)];
    for (const answer of answers) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ status: 'reset_sent' });
      expect(answer.headers.get('content-type')).toBe(answers[2].headers.get('content-type'));
    }
    // Only the user with a password is emailed (their email was queued after the others' requests).
    await env.sink.waitFor(user.email, { count: 2 });
    expect(env.sink.messages.some((m) => m.to.includes(unknown) || m.to.includes(passwordless))).toBe(false);
  });

  it('15 a pending sign-up with a password may reset it: the email counts as verified', async () => {
    const email = uniqueEmail('pending');
    expect((await signUp(env.server, app, { email, password })).status).toBe(200);
    await env.sink.waitFor(email); // the sign-up's email first: two queued emails may arrive in either order
    await ask(email);
    const code = await codeFor(env.sink, email, 2);
    const done = await confirm({ email, code, new_password: newPassword });
    expect(done.status).toBe(200);
    expect((await me(done.body.access_token)).body).toMatchObject({ email_verified: true });
    expect((await signIn(email, newPassword)).status).toBe(200);
  });

  it('13/15 a reset is a first proof of the address: an OAuth identity linked while it was unproven is removed; a verified account keeps its own', async () => {
    const link = async (userId: string) => {
      const now = new Date().toISOString();
      await execDatabase(
        env.server.databaseUrl,
        `insert into oauth_identities (app_id, provider, subject, user_id, email, name, created_at, updated_at) values ('${app.app_id}', 'google', '${randomUUID()}', '${userId}', 'x@example.com', null, '${now}', '${now}')`,
      );
    };
    const linked = async (userId: string) =>
      Number((await queryDatabase(env.server.databaseUrl, `select count(*) as n from oauth_identities where user_id = '${userId}'`))[0]!.n);
    const email = uniqueEmail('unproven');
    const pending = await signUp(env.server, app, { email, password });
    expect(pending.status).toBe(200);
    const [row] = await queryDatabase(env.server.databaseUrl, `select id from users where app_id = '${app.app_id}' and email_normalized = '${email.toLowerCase()}'`);
    const userId = String(row!.id);
    await link(userId);
    // The sign-up's email first: two queued emails may be delivered in either order.
    await env.sink.waitFor(email);
    await ask(email);
    expect((await confirm({ email, code: await codeFor(env.sink, email, 2), new_password: newPassword })).status).toBe(200);
    expect(await linked(userId)).toBe(0);

    const owner = await verifiedUser(env, app);
    await link(owner.userId);
    await ask(owner.email);
    expect((await confirm({ email: owner.email, code: await codeFor(env.sink, owner.email, 2), new_password: newPassword })).status).toBe(200);
    expect(await linked(owner.userId)).toBe(1);
  });

  it('15 400: a redirect_url off the allow-list, a bad email, a short new password', async () => {
    const user = await verifiedUser(env, app);
    expect((await ask(user.email, { redirect_url: 'https://evil.example.com/reset' })).status).toBe(400);
    expect((await ask('not an email')).status).toBe(400);
    expect((await confirm({ email: user.email, code: '123456', new_password: 'short' })).status).toBe(400);
    expect((await confirm({ reset_token: 'pr_made_up', new_password: newPassword })).body).toEqual({ detail: 'invalid or expired token', code: 'invalid_token' });
  });
});

describe('15 reset codes follow the rules of codes', () => {
  it('15 a code dies after 5 wrong tries; the right one is then refused', async () => {
    const user = await verifiedUser(env, app);
    await ask(user.email);
    const right = await codeFor(env.sink, user.email, 2);
    for (const code of wrongCodes(right, 5)) expect((await confirm({ email: user.email, code, new_password: newPassword })).status).toBe(400);
    expect((await confirm({ email: user.email, code: right, new_password: newPassword })).status).toBe(400);
    expect((await signIn(user.email, password)).status).toBe(200);
  });

  it('15 300 concurrent guesses (over two nodes on PostgreSQL): at most 5 are ever compared', async () => {
    const user = await verifiedUser(env, app);
    await ask(user.email);
    const right = await codeFor(env.sink, user.email, 2);
    const guesses = wrongCodes(right, 299);
    guesses.splice(150, 0, right);
    const results = await Promise.all(
      guesses.map((code, i) =>
        confirm({ email: user.email, code, new_password: newPassword }, { ip: `198.51.100.${i % 30}`, server: second && i % 2 ? second : env.server }),
      ),
    );
    expect(results.every((r) => r.status === 200 || r.status === 400)).toBe(true);
    const wins = results.filter((r) => r.status === 200);
    expect(wins.length).toBeLessThanOrEqual(1);
    const [row] = await queryDatabase(
      env.server.databaseUrl,
      `SELECT attempts FROM email_challenges WHERE email_normalized = '${user.email}' AND purpose = 'password_reset'`,
    );
    expect(Number(row.attempts)).toBeLessThanOrEqual(5);
    if (wins.length === 0) {
      expect(Number(row.attempts)).toBe(5);
      expect((await confirm({ email: user.email, code: right, new_password: newPassword })).status).toBe(400);
    }
  });

  it('15 reset codes and links are no sign-in: verify-code and /v1/email/verify refuse them, and sign-in codes cannot reset', async () => {
    const user = await verifiedUser(env, app);
    await ask(user.email);
    const code = await codeFor(env.sink, user.email, 2);
    const token = (await resetLink(env.sink, user.email, 2)).searchParams.get('reset_token')!;
    expect((await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email: user.email, code } })).status).toBe(400);
    expect((await api(env.server, 'GET', `/v1/email/verify?token=${encodeURIComponent(token)}`)).status).toBe(400);
    // Both are still live for the reset itself.
    expect((await confirm({ email: user.email, code, new_password: newPassword })).status).toBe(200);

    const email = uniqueEmail('signup');
    await signUp(env.server, app, { email, password });
    const signupCode = await codeFor(env.sink, email);
    expect((await confirm({ email, code: signupCode, new_password: newPassword })).status).toBe(400);
  });

  it("15 app isolation: another app's key neither consumes nor accepts the token; the other app's user is not touched", async () => {
    const user = await verifiedUser(env, app);
    await ask(user.email);
    const token = (await resetLink(env.sink, user.email, 2)).searchParams.get('reset_token')!;
    expect((await confirm({ reset_token: token, new_password: newPassword }, { target: other })).status).toBe(400);
    // The same address in the other app has no account: asking there sends nothing to it.
    expect((await ask(user.email, {}, other)).body).toEqual({ status: 'reset_sent' });
    expect((await confirm({ reset_token: token, new_password: newPassword })).status).toBe(200);
    expect(env.sink.messages.filter((m) => m.to.includes(user.email) && m.subject.startsWith('Reset')).length).toBe(1);
  });
});

describe('15 the reset windows (docs/rate-limits.md)', () => {
  let limited: AuthEnv;
  let limitedApp: TestApp;
  beforeAll(async () => {
    limited = await startAuthServer({ TRUST_PROXY: 'true', RATE_LIMITS: 'password_reset_email=2/300,password_reset_email_any=3/3600,verify_code_email=2/300' });
    limitedApp = await createApp(limited.server);
  });
  afterAll(async () => {
    await limited?.stop();
  });
  const post = (path: string, body: Record<string, unknown>, ip: string) =>
    api(limited.server, 'POST', path, { publishableKey: limitedApp.publishable_key, body, headers: { 'x-forwarded-for': ip } });

  it('15 password_reset_email per (email, IP), password_reset_email_any per email, 429 with Retry-After', async () => {
    const email = uniqueEmail('limited');
    expect((await post('/v1/password_resets', { email }, '192.0.2.1')).status).toBe(200);
    expect((await post('/v1/password_resets', { email }, '192.0.2.1')).status).toBe(200);
    const full = await post('/v1/password_resets', { email }, '192.0.2.1');
    expect(full.status).toBe(429);
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0);
    // Another IP has its own window, until the per-email cap (3) is reached.
    expect((await post('/v1/password_resets', { email }, '192.0.2.2')).status).toBe(200);
    expect((await post('/v1/password_resets', { email }, '192.0.2.3')).status).toBe(429);
  });

  it('15 confirms count in the verify_code_email windows', async () => {
    const email = uniqueEmail('guesser');
    const body = { email, code: '000000', new_password: newPassword };
    expect((await post('/v1/password_resets/confirm', body, '192.0.2.9')).status).toBe(400);
    expect((await post('/v1/password_resets/confirm', body, '192.0.2.9')).status).toBe(400);
    expect((await post('/v1/password_resets/confirm', body, '192.0.2.9')).status).toBe(429);
  });

  it.skipIf(!process.env.TEST_REDIS_URL)('14 the windows live in Redis under keys that hold no email address', async () => {
    const email = uniqueEmail('redis');
    await post('/v1/password_resets', { email }, '192.0.2.20');
    const { Redis } = await import('ioredis');
    const redis = new Redis(process.env.TEST_REDIS_URL!);
    try {
      const keys = await redis.keys(`gh:rl:password_reset_email*:${limitedApp.app_id}:*`);
      expect(keys.length).toBeGreaterThanOrEqual(2);
      expect(keys.some((key) => key.includes('@') || key.includes(email.split('@')[0]))).toBe(false);
    } finally {
      redis.disconnect();
    }
  });
});
