import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, sharedAuthServer, uniqueEmail, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';

// docs/account.md: POST /v1/me/email and POST /v1/me/email/confirm. Nothing changes until the new
// address is proven; the unique index on the app's emails decides a race for one address.

let env: AuthEnv;
let app: TestApp;
let other: TestApp;
const ORIGIN = 'http://localhost:3000';

beforeAll(async () => {
  env = await sharedAuthServer();
  app = await createApp(env.server, { args: ['--verification-method', 'both', '--allowed-origin', ORIGIN] });
  other = await createApp(env.server);
});
afterAll(async () => {
  await env?.stop();
});

const password = 'correct horse battery';

const requestChange = (token: string, body: Record<string, unknown>, target: TestApp = app) =>
  api(env.server, 'POST', '/v1/me/email', { publishableKey: target.publishable_key, bearer: token, body });
const confirmChange = (token: string, body: Record<string, unknown>) =>
  api(env.server, 'POST', '/v1/me/email/confirm', { publishableKey: app.publishable_key, bearer: token, body });
const me = (token: string) => api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });
const signIn = (email: string) => api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password } });

/** A user made server-side with a session (no proof-of-work, no argon2: cheap enough for races). */
async function sessionUser() {
  const email = uniqueEmail('racer');
  const created = await api(env.server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } });
  expect(created.status).toBe(201);
  const issued = await api(env.server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: created.body.id, expires_in_seconds: 600 } });
  return { email, userId: created.body.id as string, token: issued.body.token as string };
}

/** The email_change_token of the newest email to `email`. */
async function changeToken(email: string): Promise<string> {
  const mail = await env.sink.waitFor(email);
  const match = /https?:\/\/\S+[?&]email_change_token=([^\s<>"&]+)/.exec(mail.text);
  if (!match) throw new Error(`no email_change_token link in:\n${mail.text}`);
  return decodeURIComponent(match[1]);
}

describe('15 change of email', () => {
  it('15 the code proves the new address: nothing changes before, the user answers as /v1/me after, the old address gets a notice', async () => {
    const user = await verifiedUser(env, app);
    const newEmail = uniqueEmail('New.Address');
    const asked = await requestChange(user.tokens.access_token, { new_email: newEmail });
    expect(asked.status).toBe(200);
    expect(asked.body).toEqual({ status: 'verification_sent' });
    const mail = await env.sink.waitFor(newEmail);
    expect(mail.subject).toMatch(/^Confirm your new email/);
    // Nothing changes until the new address is proven.
    expect((await me(user.tokens.access_token)).body.email).toBe(user.email);
    expect((await signIn(user.email)).status).toBe(200);
    expect((await signIn(newEmail)).status).toBe(401);

    const code = await codeFor(env.sink, newEmail);
    const done = await confirmChange(user.tokens.access_token, { code });
    expect(done.status).toBe(200);
    expect(done.body).toEqual({ user_id: user.userId, email: newEmail, email_verified: true, is_bot: false, public_metadata: {}, unsafe_metadata: {}, locale: null, organization: null });
    expect((await me(user.tokens.access_token)).body).toEqual(done.body);
    expect((await signIn(newEmail)).status).toBe(200);
    expect((await signIn(user.email)).status).toBe(401);

    const notice = await env.sink.waitFor(user.email, { count: 2 });
    expect(notice.subject).toMatch(/^Your email was changed for/);
    expect(notice.text).toContain(`${newEmail[0]}***@example.com`);
    for (const part of [notice.text, notice.html]) {
      expect(part).not.toContain(newEmail);
      expect(part).not.toMatch(/https?:\/\/|token|\b\d{6}\b/);
    }
    // Single use.
    expect((await confirmChange(user.tokens.access_token, { code })).status).toBe(400);
  });

  it('15 the link goes to the allow-listed redirect_url with ?email_change_token=, and the token confirms once', async () => {
    const user = await verifiedUser(env, app);
    const newEmail = uniqueEmail('linked');
    expect((await requestChange(user.tokens.access_token, { new_email: newEmail, redirect_url: `${ORIGIN}/settings` })).status).toBe(200);
    const mail = await env.sink.waitFor(newEmail);
    expect(mail.text).toContain(`${ORIGIN}/settings?email_change_token=`);
    const token = await changeToken(newEmail);
    const done = await confirmChange(user.tokens.access_token, { token });
    expect(done.status).toBe(200);
    expect(done.body.email).toBe(newEmail);
    expect((await confirmChange(user.tokens.access_token, { token })).status).toBe(400);
  });

  it("15 another user's token or code confirms nothing and stays live for its owner", async () => {
    const owner = await sessionUser();
    const intruder = await sessionUser();
    const newEmail = uniqueEmail('wanted');
    expect((await requestChange(owner.token, { new_email: newEmail })).status).toBe(200);
    const token = await changeToken(newEmail);
    const code = await codeFor(env.sink, newEmail);
    expect((await confirmChange(intruder.token, { token })).status).toBe(400);
    expect((await confirmChange(intruder.token, { code })).status).toBe(400);
    expect((await me(intruder.token)).body.email).toBe(intruder.email);
    expect((await confirmChange(owner.token, { token })).status).toBe(200);
  });

  it('15 409 at the request when another user of the app has the address (case-insensitively); its owner keeps it', async () => {
    const holder = await verifiedUser(env, app);
    const user = await sessionUser();
    const res = await requestChange(user.token, { new_email: holder.email.toUpperCase() });
    expect(res.status).toBe(409);
    expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    // The same address in another app is no conflict (emails are unique per app).
    const elsewhere = await api(env.server, 'POST', '/v1/users', { bearer: other.secret_key, body: { email: uniqueEmail('other') } });
    const otherToken = await api(env.server, 'POST', '/v1/sign_in_tokens', { bearer: other.secret_key, body: { user_id: elsewhere.body.id, expires_in_seconds: 600 } });
    expect((await requestChange(otherToken.body.token, { new_email: holder.email }, other)).status).toBe(200);
  });

  it('15 409 again at the confirm when the address was taken meanwhile', async () => {
    const first = await sessionUser();
    const second = await sessionUser();
    const newEmail = uniqueEmail('contested');
    expect((await requestChange(first.token, { new_email: newEmail })).status).toBe(200);
    const firstCode = await codeFor(env.sink, newEmail, 1);
    expect((await requestChange(second.token, { new_email: newEmail })).status).toBe(200);
    const secondCode = await codeFor(env.sink, newEmail, 2);
    expect((await confirmChange(first.token, { code: firstCode })).status).toBe(200);
    const late = await confirmChange(second.token, { code: secondCode });
    expect(late.status).toBe(409);
    expect((await me(second.token)).body.email).toBe(second.email);
  });

  it('15 two users racing to confirm one address: exactly one wins, the other gets 409', async () => {
    for (let round = 0; round < 3; round++) {
      const a = await sessionUser();
      const b = await sessionUser();
      const newEmail = uniqueEmail(`race${round}`);
      await requestChange(a.token, { new_email: newEmail });
      const codeA = await codeFor(env.sink, newEmail, 1);
      await requestChange(b.token, { new_email: newEmail });
      const codeB = await codeFor(env.sink, newEmail, 2);
      const results = await Promise.all([confirmChange(a.token, { code: codeA }), confirmChange(b.token, { code: codeB })]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const users = await api(env.server, 'GET', `/v1/users?email=${encodeURIComponent(newEmail)}`, { bearer: app.secret_key });
      expect(users.body.users).toHaveLength(1);
    }
  });

  it('15 a code dies after 5 wrong tries', async () => {
    const user = await sessionUser();
    const newEmail = uniqueEmail('guessed');
    await requestChange(user.token, { new_email: newEmail });
    const right = await codeFor(env.sink, newEmail);
    const wrong = Array.from({ length: 5 }, (_, i) => String((Number(right) + 1 + i) % 1_000_000).padStart(6, '0'));
    for (const code of wrong) expect((await confirmChange(user.token, { code })).status).toBe(400);
    expect((await confirmChange(user.token, { code: right })).status).toBe(400);
    expect((await me(user.token)).body.email).toBe(user.email);
  });

  it('15 400: the current address, a malformed one, a redirect_url off the allow-list, a confirm with neither code nor token', async () => {
    const user = await sessionUser();
    expect((await requestChange(user.token, { new_email: user.email.toUpperCase() })).status).toBe(400);
    expect((await requestChange(user.token, { new_email: 'not an email' })).status).toBe(400);
    expect((await requestChange(user.token, { new_email: uniqueEmail(), redirect_url: 'https://evil.example.com/' })).status).toBe(400);
    expect((await confirmChange(user.token, {})).status).toBe(400);
  });

  it('15 CSRF: with the __session cookie, an Origin off the allow-list is 403 and nothing is sent', async () => {
    const user = await sessionUser();
    const newEmail = uniqueEmail('csrf');
    const cookie = `__session=${user.token}`;
    const send = (origin: string) =>
      api(env.server, 'POST', '/v1/me/email', { publishableKey: app.publishable_key, body: { new_email: newEmail }, headers: { cookie, origin } });
    expect((await send('https://evil.example.com')).status).toBe(403);
    expect((await send(ORIGIN)).status).toBe(200);
    await env.sink.waitFor(newEmail);
    expect(env.sink.messages.filter((m) => m.to.includes(newEmail)).length).toBe(1);
  });

  it("15 app isolation: one app's token with another app's key is 401", async () => {
    const user = await sessionUser();
    expect((await requestChange(user.token, { new_email: uniqueEmail() }, other)).status).toBe(401);
    const confirm = await api(env.server, 'POST', '/v1/me/email/confirm', { publishableKey: other.publishable_key, bearer: user.token, body: { code: '123456' } });
    expect(confirm.status).toBe(401);
  });
});
