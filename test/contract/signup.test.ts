import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, linkFor, setCookies, signUp, sharedAuthServer, uniqueEmail, type AuthEnv } from '../helpers/accounts.js';
import { queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';

let env: AuthEnv;
let app: TestApp;

beforeAll(async () => {
  env = await sharedAuthServer();
  app = await createApp(env.server, { args: ['--allowed-origin', 'http://localhost:3000', '--domain', 'shop.example.test'] });
});
afterAll(async () => {
  await env?.stop();
});

const key = () => app.publishable_key;

describe('4.1 POST /v1/signups', () => {
  it('answers verification_sent with the new user id and emails a 6-digit code (verification_method code)', async () => {
    const email = uniqueEmail();
    const res = await signUp(env.server, app, { email, password: 'correct horse battery' });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'verification_sent', user_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const mail = await env.sink.waitFor(email);
    expect(mail.text).toMatch(/(^|\s)\d{6}(\s|$)/);
    expect(mail.text).not.toMatch(/\/v1\/email\/verify/);
    expect(mail.html).toContain(await codeFor(env.sink, email));
  });

  it('works without a password', async () => {
    const res = await signUp(env.server, app, { email: uniqueEmail(), password: null });
    expect(res.status).toBe(200);
  });

  it('409 when the user exists, whatever the case of the email', async () => {
    const email = uniqueEmail('Case');
    expect((await signUp(env.server, app, { email })).status).toBe(200);
    const again = await signUp(env.server, app, { email: email.toUpperCase() });
    expect(again.status).toBe(409);
    expect(again.body.detail).toMatch(/exists/);
  });

  it('400 for a bad email, a short or long password, and nothing is created', async () => {
    for (const body of [
      { email: 'not-an-email' },
      { email: uniqueEmail(), password: 'short' },
      { email: uniqueEmail(), password: 'x'.repeat(257) },
    ]) {
      const res = await signUp(env.server, app, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
    const rows = await queryDatabase(env.server.databaseUrl, "SELECT id FROM users WHERE email = 'not-an-email'");
    expect(rows).toHaveLength(0);
  });

  it('400 when a password is sent to an app with passwords off', async () => {
    const noPasswords = await createApp(env.server, { args: ['--passwords', 'off'] });
    const res = await signUp(env.server, noPasswords, { email: uniqueEmail(), password: 'correct horse battery' });
    expect(res.status).toBe(400);
    expect(res.body.detail).toMatch(/passwords are disabled/);
    expect((await signUp(env.server, noPasswords, { email: uniqueEmail() })).status).toBe(200);
  });

  it('400 for a redirect_url off the allow-list, over http, or with credentials', async () => {
    for (const redirect_url of ['https://evil.example.com/', 'http://shop.example.test/', 'https://user:pw@shop.example.test/', 'relative/path']) {
      const res = await signUp(env.server, app, { email: uniqueEmail(), redirect_url });
      expect(res.status, redirect_url).toBe(400);
      expect(res.body.detail).toMatch(/redirect_url/);
    }
  });

  it('stores the password hashed with argon2id, never in clear', async () => {
    const email = uniqueEmail();
    await signUp(env.server, app, { email, password: 'a very secret passphrase' });
    const [row] = await queryDatabase(env.server.databaseUrl, `SELECT password_hash FROM users WHERE email_normalized = '${email}'`);
    expect(String(row.password_hash)).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);
    expect(await env.server.logs()).not.toContain('a very secret passphrase');
  });
});

describe('4.1 POST /v1/verify-code', () => {
  it('a right code verifies the email and answers tokens; the code works once', async () => {
    const email = uniqueEmail();
    const signup = await signUp(env.server, app, { email, password: 'correct horse battery' });
    const code = await codeFor(env.sink, email);
    const res = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: key(), body: { email: email.toUpperCase(), code } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ access_token: expect.any(String), refresh_token: expect.stringMatching(/^rt_[A-Za-z0-9_-]{70}$/), user_id: signup.body.user_id, session_id: expect.any(String) });
    const me = await api(env.server, 'GET', '/v1/me', { publishableKey: key(), bearer: res.body.access_token });
    expect(me.body).toMatchObject({ email_verified: true, is_bot: false });
    const again = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: key(), body: { email, code } });
    expect(again.status).toBe(400);
  });

  it('400 for a wrong code, a malformed code, or an email without a code', async () => {
    const email = uniqueEmail();
    await signUp(env.server, app, { email });
    const code = await codeFor(env.sink, email);
    const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
    for (const body of [{ email, code: wrong }, { email, code: '12345' }, { email, code: 'abcdef' }, { email: uniqueEmail(), code }]) {
      const res = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: key(), body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
  });

  it('a code dies after 5 wrong tries, even for the right code afterwards', async () => {
    const email = uniqueEmail();
    await signUp(env.server, app, { email });
    const code = await codeFor(env.sink, email);
    const wrong = String((Number(code) + 7) % 1_000_000).padStart(6, '0');
    for (let i = 0; i < 5; i++) {
      expect((await api(env.server, 'POST', '/v1/verify-code', { publishableKey: key(), body: { email, code: wrong } })).status).toBe(400);
    }
    const right = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: key(), body: { email, code } });
    expect(right.status).toBe(400);
  });

  it('a new code of the same purpose replaces the old one; a claim email leaves the sign-up code alive', async () => {
    const email = uniqueEmail();
    await signUp(env.server, app, { email });
    const signupCode = await codeFor(env.sink, email, 1);
    // A magic-link request for the pending user mails a claim code and must not retire the sign-up's own code.
    const claim = await api(env.server, 'POST', '/v1/signins', { publishableKey: key(), body: { email } });
    expect(claim.body).toMatchObject({ status: 'verification_sent' });
    const firstClaim = await codeFor(env.sink, email, 2);
    await api(env.server, 'POST', '/v1/signins', { publishableKey: key(), body: { email } });
    const secondClaim = await codeFor(env.sink, email, 3);
    if (firstClaim !== secondClaim) {
      expect((await api(env.server, 'POST', '/v1/verify-code', { publishableKey: key(), body: { email, code: firstClaim } })).status).toBe(400);
    }
    expect((await api(env.server, 'POST', '/v1/verify-code', { publishableKey: key(), body: { email, code: signupCode } })).status).toBe(200);
  });

  it('a code of app A does not work in app B', async () => {
    const other = await createApp(env.server);
    const email = uniqueEmail();
    await signUp(env.server, app, { email });
    const code = await codeFor(env.sink, email);
    const res = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: other.publishable_key, body: { email, code } });
    expect(res.status).toBe(400);
  });
});

describe('4.1 GET /v1/email/verify and verification_method', () => {
  it('link: the email carries only a link; opening it verifies, sets both cookies and redirects to redirect_url', async () => {
    const linkApp = await createApp(env.server, { args: ['--verification-method', 'link', '--allowed-origin', 'http://localhost:3000'] });
    const email = uniqueEmail();
    await signUp(env.server, linkApp, { email, password: 'correct horse battery', redirect_url: 'http://localhost:3000/welcome?x=1' });
    const mail = await env.sink.waitFor(email);
    expect(mail.text).not.toMatch(/(^|\s)\d{6}(\s|$)/);
    const link = await linkFor(env.sink, email);
    expect(link.origin).toBe(env.server.url);
    const res = await api(env.server, 'GET', link.pathname + link.search);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('http://localhost:3000/welcome?x=1');
    const cookies = setCookies(res.headers);
    expect(cookies.__session.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/', 'max-age': '900' });
    expect(cookies.__refresh.attributes).toMatchObject({ httponly: true, path: '/v1/tokens/session' });
    const me = await api(env.server, 'GET', '/v1/me', { publishableKey: linkApp.publishable_key, headers: { cookie: `__session=${cookies.__session.value}` } });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ email_verified: true });
    const reused = await api(env.server, 'GET', link.pathname + link.search);
    expect(reused.status).toBe(400);
  });

  it('both: one email with the code and the link; without redirect_url the target is the primary domain', async () => {
    const both = await createApp(env.server, { args: ['--verification-method', 'both', '--domain', 'both.example.test'] });
    const email = uniqueEmail();
    await signUp(env.server, both, { email });
    const mail = await env.sink.waitFor(email);
    expect(mail.text).toMatch(/(^|\s)\d{6}(\s|$)/);
    const link = await linkFor(env.sink, email);
    // Links use the verified domain's origin: the app's own front door.
    expect(link.origin).toBe('https://both.example.test');
    const res = await api(env.server, 'GET', link.pathname + link.search);
    expect(res.status).toBe(302);
    expect(res.headers.get('location')).toBe('https://both.example.test/');
  });

  it("without redirect_url or domain the target is '/'", async () => {
    const plain = await createApp(env.server, { args: ['--verification-method', 'link'] });
    const email = uniqueEmail();
    await signUp(env.server, plain, { email });
    const link = await linkFor(env.sink, email);
    const res = await api(env.server, 'GET', link.pathname + link.search);
    expect(res.headers.get('location')).toBe('/');
  });

  it('400 for an unknown token, a missing token, or a publishable key of another app', async () => {
    expect((await api(env.server, 'GET', '/v1/email/verify?token=el_nothing')).status).toBe(400);
    expect((await api(env.server, 'GET', '/v1/email/verify')).status).toBe(400);
    const linkApp = await createApp(env.server, { args: ['--verification-method', 'link'] });
    const email = uniqueEmail();
    await signUp(env.server, linkApp, { email });
    const link = await linkFor(env.sink, email);
    const wrongKey = await api(env.server, 'GET', link.pathname + link.search, { publishableKey: app.publishable_key });
    expect(wrongKey.status).toBe(400);
  });

  it('codes and links are stored hashed, never in clear', async () => {
    const both = await createApp(env.server, { args: ['--verification-method', 'both'] });
    const email = uniqueEmail();
    await signUp(env.server, both, { email });
    const code = await codeFor(env.sink, email);
    const token = (await linkFor(env.sink, email)).searchParams.get('token')!;
    const dump = JSON.stringify(await queryDatabase(env.server.databaseUrl, 'SELECT * FROM email_challenges'));
    expect(dump).not.toContain(token);
    expect(dump).not.toContain(`"${code}"`);
  });
});
