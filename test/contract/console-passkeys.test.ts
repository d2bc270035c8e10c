import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { consoleApp, consoleUser } from '../helpers/console.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/console.md, "Passkeys": the console app's relying party is PUBLIC_BASE_URL's host, read from the
// configuration at each request (not stored): a node started with another PUBLIC_BASE_URL on the same
// database answers that host. Every other app keeps its rule: no verified domain and no allowed origin → 400.

const MASTER_KEY = randomBytes(32).toString('base64');
let env: AuthEnv;
let console_: TestApp;

beforeAll(async () => {
  env = await startAuthServer({ PUBLIC_BASE_URL: 'https://console.example.test', MASTER_KEY });
  console_ = await consoleApp(env.server);
  // A small proof-of-work keeps the console sign-ups quick; the path is the same.
  expect((await env.server.cli(['app', 'update', console_.app_id, '--hashcash-difficulty', '4'])).code).toBe(0);
}, 120_000);
afterAll(async () => {
  await env?.stop();
});

const registrationOptions = (server: TestServer, app: TestApp, token: string) => api(server, 'POST', '/v1/me/passkeys/options', { publishableKey: app.publishable_key, bearer: token, body: {} });
const signInOptions = (server: TestServer, app: TestApp) => api(server, 'POST', '/v1/passkeys/signin/options', { publishableKey: app.publishable_key, body: {} });

describe('passkeys of the console app', () => {
  it("registration and sign-in options name PUBLIC_BASE_URL's host as the relying party", async () => {
    const member = await consoleUser(env, console_, 'passkey');
    const registration = await registrationOptions(env.server, console_, member.token);
    expect(registration.status, JSON.stringify(registration.body)).toBe(200);
    expect(registration.body.options.rp).toEqual({ id: 'console.example.test', name: 'Gatehouse console' });
    expect(registration.body.options.authenticatorSelection).toMatchObject({ residentKey: 'required', userVerification: 'required' });
    const signIn = await signInOptions(env.server, console_);
    expect(signIn.status, JSON.stringify(signIn.body)).toBe(200);
    expect(signIn.body.options.rpId).toBe('console.example.test');
  });

  it('a node with another PUBLIC_BASE_URL on the same database answers its own host', async () => {
    const other = await startServer({ DATABASE_URL: env.server.databaseUrl, MASTER_KEY, SMTP_URL: env.server.env.SMTP_URL!, PUBLIC_BASE_URL: 'https://auth.example.net:8443' });
    try {
      const member = await consoleUser(env, console_, 'moved');
      // Its tokens name the first node's issuer: the person signs in again on the new one.
      const session = await api(other, 'POST', '/v1/signins', { publishableKey: console_.publishable_key, body: { email: member.email, password: 'correct horse battery' } });
      expect(session.status, JSON.stringify(session.body)).toBe(200);
      const registration = await registrationOptions(other, console_, session.body.access_token);
      expect(registration.status, JSON.stringify(registration.body)).toBe(200);
      expect(registration.body.options.rp.id).toBe('auth.example.net');
      expect((await signInOptions(other, console_)).body.options.rpId).toBe('auth.example.net');
      // The first node still answers its own.
      expect((await signInOptions(env.server, console_)).body.options.rpId).toBe('console.example.test');
    } finally {
      await other.stop();
    }
  });

  it('an ordinary app without a verified domain or an allowed origin still answers 400, whatever PUBLIC_BASE_URL says', async () => {
    const plain = await createApp(env.server, { name: 'No origins' });
    const user = await verifiedUser(env, plain);
    const registration = await registrationOptions(env.server, plain, user.tokens.access_token);
    expect(registration.status).toBe(400);
    expect(registration.body).toMatchObject({ code: 'validation_failed', detail: expect.stringContaining('verified domain or an allowed origin') });
    const signIn = await signInOptions(env.server, plain);
    expect(signIn.status).toBe(400);
    expect(signIn.body.detail).toMatch(/verified domain or an allowed origin/);
    // With an allowed origin, its own host: not the console's.
    const withOrigin = await createApp(env.server, { name: 'With an origin', args: ['--allowed-origin', 'https://shop.example.org'] });
    expect((await signInOptions(env.server, withOrigin)).body.options.rpId).toBe('shop.example.org');
  });
});
