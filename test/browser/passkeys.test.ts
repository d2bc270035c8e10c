import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { claimsOf, passwordChallenge } from '../helpers/mfa.js';
import { SITE_FLAGS, skipReason } from './harness.js';
import { contextsOf, workerBrowser } from './worker-browser.js';

// Passkeys in a real Chromium (docs/mfa.md): its virtual authenticator (CDP WebAuthn.addVirtualAuthenticator:
// CTAP2, internal, resident keys, user verification) stands in for the device. The app's page at
// http://localhost:<port> (a secure context, and a valid relying-party id: the app's first allowed origin)
// fetches options from Gatehouse, calls navigator.credentials, and posts the credential back.

const reason = skipReason();
const PAGE = '<!doctype html><title>app</title><body>app</body>';

let env: AuthEnv;
let app: TestApp;
let contexts: ReturnType<typeof contextsOf>;
let pages: Server;
let SITE: string;

beforeAll(async () => {
  if (reason) return;
  pages = createServer((_request, response) => response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(PAGE));
  await new Promise<void>((done) => pages.listen(0, '127.0.0.1', done));
  SITE = `http://localhost:${(pages.address() as AddressInfo).port}`;
  env = await sharedAuthServer();
  app = await createApp(env.server, { name: 'Passkeys in Chromium', args: ['--allowed-origin', SITE] });
  // The worker's Chromium (worker-browser.ts), in contexts of this file's own.
  contexts = contextsOf(await workerBrowser(SITE_FLAGS));
});
afterAll(async () => {
  await contexts?.close();
  await env?.stop();
  await new Promise<void>((done) => (pages ? pages.close(() => done()) : done()));
});

/** A browser profile on the app's page with a virtual platform authenticator (a phone or laptop with a passkey store). */
async function deviceWithAuthenticator(): Promise<{ context: BrowserContext; page: Page }> {
  const context = await contexts.open();
  const page = await context.newPage();
  await page.goto(SITE);
  const cdp = await context.newCDPSession(page);
  await cdp.send('WebAuthn.enable');
  await cdp.send('WebAuthn.addVirtualAuthenticator', {
    options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true, automaticPresenceSimulation: true },
  });
  return { context, page };
}

/**
 * Runs in the page: POSTs to `optionsPath` (with `body`), hands the options to navigator.credentials
 * (create or get), and POSTs the credential as JSON to `resultPath` with `fields` (and the options'
 * challenge_id when they carry one): what the app's own script would do. Answers the last response.
 */
function ceremony(page: Page, input: { api: string; key: string; token?: string; mode: 'create' | 'get'; optionsPath: string; body?: object; resultPath: string; fields?: object }) {
  return page.evaluate(
    async ({ api, key, token, mode, optionsPath, body, resultPath, fields }) => {
      const headers: Record<string, string> = { 'content-type': 'application/json', 'x-publishable-key': key };
      if (token) headers.authorization = `Bearer ${token}`;
      const asked = await fetch(api + optionsPath, { method: 'POST', headers, body: JSON.stringify(body ?? {}) });
      const answer = await asked.json();
      const credential =
        mode === 'create'
          ? await navigator.credentials.create({ publicKey: PublicKeyCredential.parseCreationOptionsFromJSON(answer.options) })
          : await navigator.credentials.get({ publicKey: PublicKeyCredential.parseRequestOptionsFromJSON(answer.options) });
      const json = (credential as PublicKeyCredential).toJSON();
      // /v1/mfa/verify names the credential `passkey`, the other routes `credential`.
      const sent = resultPath === '/v1/mfa/verify' ? { ...fields, passkey: json } : { challenge_id: answer.challenge_id, ...fields, credential: json };
      const done = await fetch(api + resultPath, { method: 'POST', headers, body: JSON.stringify(sent) });
      return { status: done.status, body: await done.json() };
    },
    input,
  );
}

/** Registers a passkey from the page for the signed-in user whose access token is `token`. */
const registerPasskey = (page: Page, token: string, fields?: object) =>
  ceremony(page, { api: env.server.url, key: app.publishable_key, token, mode: 'create', optionsPath: '/v1/me/passkeys/options', resultPath: '/v1/me/passkeys', fields });

describe.skipIf(reason)(`browser: passkeys with Chromium's virtual authenticator${reason ? ` (skipped: ${reason})` : ''}`, () => {
  it('register a passkey from a signed-in page, then sign in with it (discoverable: no email typed): amr ["webauthn"], aal2', async () => {
    const user = await verifiedUser(env, app);
    const { context, page } = await deviceWithAuthenticator();
    const registered = await registerPasskey(page, user.tokens.access_token, { friendly_name: 'laptop' });
    expect(registered.status).toBe(201);
    expect(registered.body.factor).toMatchObject({ type: 'webauthn', status: 'verified', friendly_name: 'laptop' });
    expect(registered.body.recovery_codes).toHaveLength(10);
    expect(claimsOf(registered.body.access_token)).toMatchObject({ aal: 'aal2', amr: ['email', 'webauthn'] });
    const listed = await api(env.server, 'GET', '/v1/me/factors', { publishableKey: app.publishable_key, bearer: registered.body.access_token });
    expect(listed.body.factors).toEqual([expect.objectContaining({ type: 'webauthn', friendly_name: 'laptop' })]);

    const signedIn = await ceremony(page, {
      api: env.server.url,
      key: app.publishable_key,
      mode: 'get',
      optionsPath: '/v1/passkeys/signin/options',
      resultPath: '/v1/passkeys/signin',
    });
    expect(signedIn.status).toBe(200);
    expect(signedIn.body.user_id).toBe(user.userId);
    expect(claimsOf(signedIn.body.access_token)).toMatchObject({ sub: user.userId, amr: ['webauthn'], aal: 'aal2' });
    expect((await api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: signedIn.body.access_token })).status).toBe(200);
    await context.close();
  });

  it('a passkey as the second factor: password sign-in answers mfa_required, the passkey completes it (amr ["pwd","webauthn"])', async () => {
    const user = await verifiedUser(env, app);
    const { context, page } = await deviceWithAuthenticator();
    const registered = await registerPasskey(page, user.tokens.access_token);
    expect(registered.status).toBe(201);
    const mfaToken = await passwordChallenge(env.server, app, user.email, user.password);
    const done = await ceremony(page, {
      api: env.server.url,
      key: app.publishable_key,
      mode: 'get',
      optionsPath: '/v1/mfa/passkey/options',
      body: { mfa_token: mfaToken },
      resultPath: '/v1/mfa/verify',
      fields: { mfa_token: mfaToken },
    });
    expect(done.status).toBe(200);
    expect(claimsOf(done.body.access_token)).toMatchObject({ sub: user.userId, amr: ['pwd', 'webauthn'], aal: 'aal2' });
    // The challenge was spent: the same mfa_token cannot be used again.
    expect((await api(env.server, 'POST', '/v1/mfa/passkey/options', { publishableKey: app.publishable_key, body: { mfa_token: mfaToken } })).status).toBe(401);
    await context.close();
  });

  it('rename and remove a passkey: the new name is listed; once removed it signs nobody in, password sign-in asks nothing, and a notice is sent', async () => {
    const user = await verifiedUser(env, app);
    const { context, page } = await deviceWithAuthenticator();
    const registered = await registerPasskey(page, user.tokens.access_token, { friendly_name: 'laptop' });
    expect(registered.status).toBe(201);
    const auth = { publishableKey: app.publishable_key, bearer: registered.body.access_token as string };
    const path = `/v1/me/factors/${registered.body.factor.factor_id}`;
    const renamed = await api(env.server, 'PATCH', path, { ...auth, body: { friendly_name: 'work laptop' } });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ type: 'webauthn', friendly_name: 'work laptop' });
    const challenge = await passwordChallenge(env.server, app, user.email, user.password);
    expect(challenge).toBeTruthy();
    expect((await api(env.server, 'GET', '/v1/me/factors', auth)).body.factors).toEqual([expect.objectContaining({ friendly_name: 'work laptop' })]);

    // A session that has not shown the passkey (aal1) cannot remove it; the aal2 one can.
    expect((await api(env.server, 'DELETE', path, { publishableKey: app.publishable_key, bearer: user.tokens.access_token })).status).toBe(403);
    const removed = await api(env.server, 'DELETE', path, auth);
    expect(removed.status).toBe(200);
    expect(removed.body).toEqual({ status: 'deleted' });
    // The authenticator still holds the credential, but the server no longer knows it.
    const refused = await ceremony(page, { api: env.server.url, key: app.publishable_key, mode: 'get', optionsPath: '/v1/passkeys/signin/options', resultPath: '/v1/passkeys/signin' });
    expect(refused.status).toBe(401);
    const signin = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, password: user.password } });
    expect(signin.body.mfa_required).toBeUndefined();
    expect(signin.body.access_token).toBeTruthy();
    const notice = await env.sink.waitFor(user.email, { count: 3 });
    expect(notice.subject).toMatch(/^A second factor was removed/);
    await context.close();
  });
});
