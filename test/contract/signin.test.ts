import { createRemoteJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, linkFor, setCookies, signUp, sharedAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';

let env: AuthEnv;
let app: TestApp;

beforeAll(async () => {
  env = await sharedAuthServer();
  app = await createApp(env.server, { args: ['--allowed-origin', 'http://localhost:3000'] });
});
afterAll(async () => {
  await env?.stop();
});

const signin = (body: Record<string, unknown>, target: TestApp = app) =>
  api(env.server, 'POST', '/v1/signins', { publishableKey: target.publishable_key, body });

describe('4.1 POST /v1/signins strategy password', () => {
  it('answers tokens and sets __session and __refresh; the JWT verifies offline through the JWKS', async () => {
    const user = await verifiedUser(env, app);
    const res = await signin({ email: user.email, password: user.password, strategy: 'password' });
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'refresh_token', 'session_id', 'user_id']);
    expect(res.body.user_id).toBe(user.userId);
    const cookies = setCookies(res.headers);
    expect(cookies.__session.value).toBe(res.body.access_token);
    expect(cookies.__session.attributes).toMatchObject({ httponly: true, samesite: 'Lax', path: '/', 'max-age': '900' });
    expect(cookies.__session.attributes.secure).toBeUndefined(); // PUBLIC_BASE_URL is http here
    expect(cookies.__refresh.value).toBe(res.body.refresh_token);

    const jwks = createRemoteJWKSet(new URL(`${env.server.url}/.well-known/jwks.json?app_id=${app.app_id}`));
    const { payload, protectedHeader } = await jwtVerify(res.body.access_token, jwks, { issuer: env.server.url, audience: app.app_id, algorithms: ['RS256'] });
    expect(protectedHeader.kid).toBe(`${app.app_id}:1`);
    expect(payload).toMatchObject({ sub: user.userId, sid: res.body.session_id, email: user.email, email_verified: true });
    expect(payload.exp! - payload.iat!).toBe(900);
  });

  it('a password without a strategy selects the password strategy', async () => {
    const user = await verifiedUser(env, app);
    const res = await signin({ email: user.email.toUpperCase(), password: user.password });
    expect(res.status).toBe(200);
    expect(res.body.access_token).toBeDefined();
  });

  it('401 for a wrong password and for an unknown email, with the same detail', async () => {
    const user = await verifiedUser(env, app);
    const wrong = await signin({ email: user.email, password: 'wrong password!', strategy: 'password' });
    const unknown = await signin({ email: uniqueEmail(), password: 'whatever pass', strategy: 'password' });
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.body.detail).toBe(unknown.body.detail);
  });

  it('an unverified sign-up is told so, only after the right password', async () => {
    const email = uniqueEmail();
    await signUp(env.server, app, { email, password: 'correct horse battery' });
    const right = await signin({ email, password: 'correct horse battery' });
    expect(right.status).toBe(401);
    expect(right.body.detail).toMatch(/not verified/);
    const wrong = await signin({ email, password: 'not the password' });
    expect(wrong.status).toBe(401);
    expect(wrong.body.detail).not.toMatch(/verified/);
  });

  it('401 invalid publishable key for a made-up key or a secret key sent as one, even with the right email and password', async () => {
    const user = await verifiedUser(env, app);
    for (const key of [`pk_${'0'.repeat(40)}`, app.secret_key, 'not-a-key']) {
      const res = await api(env.server, 'POST', '/v1/signins', { headers: { 'x-publishable-key': key }, body: { email: user.email, password: user.password } });
      expect(res.status).toBe(401);
      expect(res.body.detail).toBe('invalid publishable key');
      expect(setCookies(res.headers).__session).toBeUndefined();
    }
  });

  it('an allowed Origin (the CORS check resolves the app first) signs in the same, by password and by magic link', async () => {
    const user = await verifiedUser(env, app);
    const headers = { origin: 'http://localhost:3000' };
    const res = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, headers, body: { email: user.email, password: user.password } });
    expect(res.status).toBe(200);
    expect(res.body.user_id).toBe(user.userId);
    expect(res.headers.get('access-control-allow-origin')).toBe('http://localhost:3000');
    const link = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, headers, body: { email: user.email, strategy: 'magic_link' } });
    expect(link.body).toEqual({ status: 'magic_link_sent' });
    const unknown = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, headers, body: { email: uniqueEmail(), password: 'whatever pass' } });
    expect(unknown.status).toBe(401);
  });

  it('400 when strategy password has no password', async () => {
    const res = await signin({ email: uniqueEmail(), strategy: 'password' });
    expect(res.status).toBe(400);
  });

  it('a user of app A cannot sign in to app B', async () => {
    const other = await createApp(env.server);
    const user = await verifiedUser(env, app);
    const res = await signin({ email: user.email, password: user.password }, other);
    expect(res.status).toBe(401);
  });

  it('the signing key rotates: new tokens carry the new kid and old tokens still verify', async () => {
    const rotating = await createApp(env.server);
    const user = await verifiedUser(env, rotating);
    const before = await signin({ email: user.email, password: user.password }, rotating);
    const rotated = await env.server.cli(['app', 'rotate-keys', rotating.app_id]);
    expect(rotated.code).toBe(0);
    const after = await signin({ email: user.email, password: user.password }, rotating);
    expect(decodeProtectedHeader(after.body.access_token).kid).toBe(`${rotating.app_id}:2`);
    // A session opened before the rotation gets its next access token from the new key too.
    const refreshed = await api(env.server, 'POST', '/v1/tokens/session', { publishableKey: rotating.publishable_key, body: { refresh_token: before.body.refresh_token } });
    expect(refreshed.status).toBe(200);
    expect(decodeProtectedHeader(refreshed.body.access_token).kid).toBe(`${rotating.app_id}:2`);
    const jwks = createRemoteJWKSet(new URL(`${env.server.url}/.well-known/jwks.json?app_id=${rotating.app_id}`));
    for (const token of [before.body.access_token, after.body.access_token]) {
      await expect(jwtVerify(token, jwks, { audience: rotating.app_id })).resolves.toBeDefined();
      const me = await api(env.server, 'GET', '/v1/me', { publishableKey: rotating.publishable_key, bearer: token });
      expect(me.status).toBe(200);
    }
  });
});

describe('4.1 POST /v1/signins strategy magic_link (contract 4)', () => {
  it('a verified user gets magic_link_sent and a link that signs in', async () => {
    const linkApp = await createApp(env.server, { args: ['--verification-method', 'link', '--allowed-origin', 'http://localhost:3000'] });
    const email = uniqueEmail();
    await signUp(env.server, linkApp, { email });
    const verifyLink = await linkFor(env.sink, email, 1);
    expect((await api(env.server, 'GET', verifyLink.pathname + verifyLink.search)).status).toBe(302);

    const res = await signin({ email, redirect_url: 'http://localhost:3000/app' }, linkApp);
    expect(res.status).toBe(200);
    expect(res.body.status).toBe('magic_link_sent');
    expect(res.body.user_id ?? null).toBeNull();
    const mail = await env.sink.waitFor(email, { count: 2 });
    expect(mail.subject).toMatch(/sign in/i);
    const magic = await linkFor(env.sink, email, 2);
    const opened = await api(env.server, 'GET', magic.pathname + magic.search);
    expect(opened.status).toBe(302);
    expect(opened.headers.get('location')).toBe('http://localhost:3000/app');
    expect(setCookies(opened.headers).__session.value).toMatch(/^ey/);
  });

  it('a verified user can sign in with the emailed code (verification_method code)', async () => {
    const user = await verifiedUser(env, app);
    const res = await signin({ email: user.email });
    expect(res.body).toEqual({ status: 'magic_link_sent' });
    const code = await codeFor(env.sink, user.email, 2);
    const verified = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email: user.email, code } });
    expect(verified.status).toBe(200);
    expect(verified.body.user_id).toBe(user.userId);
  });

  it('an unverified user gets a fresh verification email and verification_sent with the user id', async () => {
    const email = uniqueEmail();
    const signup = await signUp(env.server, app, { email });
    const res = await signin({ email, strategy: 'magic_link' });
    expect(res.body).toEqual({ status: 'verification_sent', user_id: signup.body.user_id });
    await env.sink.waitFor(email, { count: 2 });
  });

  it('pre-hijacking: verifying through a later email drops a password set before (someone else may have set it)', async () => {
    const email = uniqueEmail('victim');
    await signUp(env.server, app, { email, password: 'attacker chose this' });
    // The outbox may deliver two queued emails in either order: wait for the sign-up's before the next.
    await codeFor(env.sink, email, 1);
    const res = await signin({ email });
    expect(res.body.status).toBe('verification_sent');
    const code = await codeFor(env.sink, email, 2);
    const verified = await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email, code } });
    expect(verified.status).toBe(200);
    const attacker = await signin({ email, password: 'attacker chose this' });
    expect(attacker.status).toBe(401);
    const me = await api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: verified.body.access_token });
    expect(me.body).toMatchObject({ email, email_verified: true });
  });

  it('the sign-up\'s own verification email keeps the password it came with', async () => {
    const email = uniqueEmail();
    await signUp(env.server, app, { email, password: 'my own password' });
    const code = await codeFor(env.sink, email);
    expect((await api(env.server, 'POST', '/v1/verify-code', { publishableKey: app.publishable_key, body: { email, code } })).status).toBe(200);
    expect((await signin({ email, password: 'my own password' })).status).toBe(200);
  });

  it('401 for an unknown email, and no email is sent', async () => {
    const email = uniqueEmail();
    const res = await signin({ email });
    expect(res.status).toBe(401);
    await expect(env.sink.waitFor(email, { timeoutMs: 300 })).rejects.toThrow();
  });

  it('400 for a redirect_url off the allow-list', async () => {
    const user = await verifiedUser(env, app);
    const res = await signin({ email: user.email, redirect_url: 'https://evil.example.com/' });
    expect(res.status).toBe(400);
  });
});
