import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, signUp, startAuthServer, uniqueEmail, type AuthEnv } from '../helpers/accounts.js';
import { queryDatabase, TEST_DB } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Issue 7, findings 1-3: emailed codes under parallel guessing, pre-hijacking through sign-up, and claim
// emails that must not retire a sign-up's own verification. docs/auth.md and docs/rate-limits.md.

let env: AuthEnv;
let app: TestApp;
let second: TestServer | undefined;

beforeAll(async () => {
  // Every client IP comes from X-Forwarded-For, so one test process can be 30 clients.
  env = await startAuthServer({ TRUST_PROXY: 'true' });
  app = await createApp(env.server);
  // On PostgreSQL a second node on the same database takes half the guesses: the race spans processes.
  if (TEST_DB === 'postgres') {
    second = await startServer({ TRUST_PROXY: 'true', SMTP_URL: env.sink.url, DATABASE_URL: env.server.databaseUrl, MASTER_KEY: env.server.env.MASTER_KEY });
  }
});
afterAll(async () => {
  await second?.stop();
  await env?.stop();
});

const key = () => app.publishable_key;
const password = 'correct horse battery';

const verify = (email: string, code: string, ip = '203.0.113.1', server = env.server) =>
  api(server, 'POST', '/v1/verify-code', { publishableKey: key(), body: { email, code }, headers: { 'x-forwarded-for': ip } });
const passwordSignIn = (email: string, pw = password) => api(env.server, 'POST', '/v1/signins', { publishableKey: key(), body: { email, password: pw } });

/** Six-digit codes other than `right`, all distinct. */
function wrongCodes(right: string, count: number): string[] {
  const codes: string[] = [];
  for (let n = 0; codes.length < count; n++) {
    const code = String((Number(right) + 1 + n * 7919) % 1_000_000).padStart(6, '0');
    if (code !== right && !codes.includes(code)) codes.push(code);
  }
  return codes;
}

describe('finding 1: emailed codes cannot be brute-forced in parallel', () => {
  it('300 concurrent guesses from 30 IPs (over two nodes on PostgreSQL): at most 5 are ever compared', async () => {
    const email = uniqueEmail('burst');
    expect((await signUp(env.server, app, { email, password })).status).toBe(200);
    const right = await codeFor(env.sink, email);
    // 299 distinct wrong guesses with the right code among them, in the middle of the burst.
    const guesses = wrongCodes(right, 299);
    guesses.splice(150, 0, right);
    const results = await Promise.all(
      guesses.map((code, i) => verify(email, code, `198.51.100.${i % 30}`, second && i % 2 ? second : env.server)),
    );
    const wins = results.filter((r) => r.status === 200);
    expect(results.every((r) => r.status === 200 || r.status === 400)).toBe(true);
    expect(wins.length).toBeLessThanOrEqual(1);
    const [row] = await queryDatabase(
      env.server.databaseUrl,
      `SELECT attempts, used_at FROM email_challenges WHERE email_normalized = '${email}' AND purpose = 'verify_email'`,
    );
    // Every compared guess was counted first, and nothing is counted past 5.
    expect(Number(row.attempts)).toBeLessThanOrEqual(5);
    if (wins.length === 0) {
      expect(Number(row.attempts)).toBe(5);
      // The code is dead: the right code, tried now, is refused.
      expect((await verify(email, right)).status).toBe(400);
    }
  });

  it('a code dies after 5 wrong tries sent one after another; the sixth try, right, is refused', async () => {
    const email = uniqueEmail('serial');
    await signUp(env.server, app, { email });
    const right = await codeFor(env.sink, email);
    for (const code of wrongCodes(right, 5)) expect((await verify(email, code)).status).toBe(400);
    expect((await verify(email, right)).status).toBe(400);
  });

  it('verify_code_email_any: 30 per email in 300 s across every IP, then 429 with Retry-After', async () => {
    const limited = await startAuthServer({ TRUST_PROXY: 'true', RATE_LIMITS: '' });
    try {
      const limitedApp = await createApp(limited.server);
      const email = uniqueEmail('spread');
      const statuses: number[] = [];
      // 31 guesses from 31 IPs: the per-(email, IP) window never fills, the per-email cap does.
      for (let i = 0; i < 31; i++) {
        const res = await api(limited.server, 'POST', '/v1/verify-code', {
          publishableKey: limitedApp.publishable_key,
          body: { email, code: '000000' },
          headers: { 'x-forwarded-for': `192.0.2.${i}` },
        });
        statuses.push(res.status);
        if (res.status === 429) expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      expect(statuses.slice(0, 30).every((s) => s === 400)).toBe(true);
      expect(statuses[30]).toBe(429);
    } finally {
      await limited.stop();
    }
  });

  it('IPv6 clients count per /64: rotating addresses inside one /64 does not escape verify_code_email', async () => {
    const limited = await startAuthServer({ TRUST_PROXY: 'true', RATE_LIMITS: 'verify_code_email=3/300' });
    try {
      const limitedApp = await createApp(limited.server);
      const email = uniqueEmail('v6');
      const send = (ip: string) =>
        api(limited.server, 'POST', '/v1/verify-code', { publishableKey: limitedApp.publishable_key, body: { email, code: '000000' }, headers: { 'x-forwarded-for': ip } });
      for (const ip of ['2001:db8:7:7::1', '2001:db8:7:7::2', '2001:db8:7:7:ffff:1:2:3']) expect((await send(ip)).status).toBe(400);
      expect((await send('2001:db8:7:7:abcd::9')).status).toBe(429);
      // Another /64 has its own window.
      expect((await send('2001:db8:7:8::1')).status).toBe(400);
    } finally {
      await limited.stop();
    }
  });
});

describe('finding 2: account pre-hijacking through sign-up (contested sign-ups)', () => {
  it("409: the victim's sign-up contests the attacker's; verifying from the inbox drops the attacker's password", async () => {
    const email = uniqueEmail('victim');
    expect((await signUp(env.server, app, { email, password: 'attacker password 1' })).status).toBe(200);
    const refused = await signUp(env.server, app, { email, password: 'victim password 1' });
    expect(refused.status).toBe(409);
    // The victim uses the code in their inbox (sent for the attacker's sign-up).
    const code = await codeFor(env.sink, email, 1);
    const verified = await verify(email, code);
    expect(verified.status).toBe(200);
    expect((await passwordSignIn(email, 'attacker password 1')).status).toBe(401);
    // The victim holds a working session.
    const me = await api(env.server, 'GET', '/v1/me', { publishableKey: key(), bearer: verified.body.access_token });
    expect(me.body).toMatchObject({ email, email_verified: true });
  });

  it('429 from the per-email window contests the pending sign-up too', async () => {
    const limited = await startAuthServer({ RATE_LIMITS: 'signup_email=1/300' });
    try {
      const limitedApp = await createApp(limited.server);
      const email = uniqueEmail('victim429');
      expect((await signUp(limited.server, limitedApp, { email, password: 'attacker password 2' })).status).toBe(200);
      expect((await signUp(limited.server, limitedApp, { email, password: 'victim password 2' })).status).toBe(429);
      const code = await codeFor(limited.sink, email, 1);
      const verified = await api(limited.server, 'POST', '/v1/verify-code', { publishableKey: limitedApp.publishable_key, body: { email, code } });
      expect(verified.status).toBe(200);
      const attacker = await api(limited.server, 'POST', '/v1/signins', { publishableKey: limitedApp.publishable_key, body: { email, password: 'attacker password 2' } });
      expect(attacker.status).toBe(401);
    } finally {
      await limited.stop();
    }
  });

  it('uncontested, the interface flow is unchanged: sign up with a password, verify, sign in with it', async () => {
    const email = uniqueEmail('plain');
    await signUp(env.server, app, { email, password });
    expect((await verify(email, await codeFor(env.sink, email))).status).toBe(200);
    expect((await passwordSignIn(email)).status).toBe(200);
  });

  it("the owner's retry with the same password is 409 but contests nothing: after verifying, the password works", async () => {
    const email = uniqueEmail('retry');
    await signUp(env.server, app, { email, password });
    expect((await signUp(env.server, app, { email, password })).status).toBe(409);
    expect((await verify(email, await codeFor(env.sink, email))).status).toBe(200);
    expect((await passwordSignIn(email)).status).toBe(200);
  });

  it('a verified account is never contested: a later sign-up is 409 and the password keeps working', async () => {
    const email = uniqueEmail('owner');
    await signUp(env.server, app, { email, password });
    expect((await verify(email, await codeFor(env.sink, email))).status).toBe(200);
    expect((await signUp(env.server, app, { email, password: 'someone else 123' })).status).toBe(409);
    expect((await passwordSignIn(email)).status).toBe(200);
  });

  it('the verification email tells whoever did not sign up to ignore it', async () => {
    const email = uniqueEmail('wording');
    await signUp(env.server, app, { email });
    const mail = await env.sink.waitFor(email);
    expect(mail.text).toMatch(/If you did not sign up for .+, ignore this email/);
  });
});

describe('finding 3: a claim email never retires a live sign-up verification', () => {
  it("a stranger's magic-link request for a pending user leaves the user's code and password working", async () => {
    const email = uniqueEmail('pending');
    await signUp(env.server, app, { email, password });
    const signupCode = await codeFor(env.sink, email, 1);
    const stranger = await api(env.server, 'POST', '/v1/signins', { publishableKey: key(), body: { email }, headers: { 'x-forwarded-for': '203.0.113.99' } });
    expect(stranger.body).toMatchObject({ status: 'verification_sent' });
    await env.sink.waitFor(email, { count: 2 });
    expect((await verify(email, signupCode)).status).toBe(200);
    expect((await passwordSignIn(email)).status).toBe(200);
  });

  it('the claim code still works, and applies the claim rule (the earlier password is dropped)', async () => {
    const email = uniqueEmail('claimer');
    await signUp(env.server, app, { email, password });
    await codeFor(env.sink, email, 1);
    await api(env.server, 'POST', '/v1/signins', { publishableKey: key(), body: { email } });
    const claimCode = await codeFor(env.sink, email, 2);
    expect((await verify(email, claimCode)).status).toBe(200);
    expect((await passwordSignIn(email)).status).toBe(401);
  });
});
