import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies, sharedAuthServer, startAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';

// Issue 48, the app option cookie_domain (docs/browser.md, "Your own API"), at the HTTP level: `__session`
// carries Domain=<cookie_domain> on answers to requests under it (sign-in, refresh), never `__refresh`; a request
// by another host name keeps host-only cookies (a browser would refuse the Domain); logout expires both kinds.

let env: AuthEnv;
let app: TestApp;
const HOST = 'auth.cookies.example.test';

beforeAll(async () => {
  // The worker's shared server of the default environment (test/suite.mjs SHARED): this file's apps and users are its own.
  env = await sharedAuthServer();
  app = await createApp(env.server, { args: ['--domain', HOST, '--cookie-domain', 'cookies.example.test'] });
});
afterAll(async () => {
  await env?.stop();
});

describe('48 cookie_domain', () => {
  it('48 cookie_domain: under the verified domain __session gets Domain=, __refresh stays host-only; refresh keeps it; logout expires both', async () => {
    const user = await verifiedUser(env, app);
    const signIn = await api(env.server, 'POST', '/v1/signins', { headers: { host: HOST }, body: { email: user.email, password: user.password, strategy: 'password' } });
    expect(signIn.status).toBe(200);
    const cookies = setCookies(signIn.headers);
    expect(cookies.__session!.attributes.domain).toBe('cookies.example.test');
    expect(cookies.__refresh!.attributes.domain).toBeUndefined();
    expect(cookies.__refresh!.attributes.path).toBe('/v1/tokens/session');

    const refreshed = await api(env.server, 'POST', '/v1/tokens/session', { headers: { host: HOST, origin: `https://${HOST}`, cookie: `__refresh=${cookies.__refresh!.value}` } });
    expect(refreshed.status).toBe(200);
    const renewed = setCookies(refreshed.headers);
    expect(renewed.__session!.attributes.domain).toBe('cookies.example.test');
    expect(renewed.__refresh!.attributes.domain).toBeUndefined();

    const logout = await api(env.server, 'POST', '/v1/sessions/logout', { headers: { host: HOST, origin: `https://${HOST}`, cookie: `__session=${renewed.__session!.value}` } });
    expect(logout.status).toBeLessThan(300);
    const expired = logout.headers.getSetCookie().filter((line) => line.startsWith('__session=;'));
    // The Domain cookie and a host-only one set before the option (a browser holds them apart).
    expect(expired).toHaveLength(2);
    expect(expired.filter((line) => /Domain=cookies\.example\.test/i.test(line))).toHaveLength(1);
    for (const line of expired) expect(line).toMatch(/Max-Age=0/);
  });

  it('48 cookie_domain: a sign-in by another host name (the publishable key on 127.0.0.1) keeps host-only cookies', async () => {
    const user = await verifiedUser(env, app);
    const signIn = await api(env.server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email: user.email, password: user.password, strategy: 'password' } });
    expect(signIn.status).toBe(200);
    const cookies = setCookies(signIn.headers);
    expect(cookies.__session!.value).toBe(signIn.body.access_token);
    expect(cookies.__session!.attributes.domain).toBeUndefined();
  });

  it('48 cookie_domain: an app without it sets host-only cookies, under its verified domain too', async () => {
    const plain = await createApp(env.server, { args: ['--domain', 'auth.plain.example.test'] });
    const user = await verifiedUser(env, plain);
    const signIn = await api(env.server, 'POST', '/v1/signins', { headers: { host: 'auth.plain.example.test' }, body: { email: user.email, password: user.password, strategy: 'password' } });
    expect(signIn.status).toBe(200);
    expect(setCookies(signIn.headers).__session!.attributes.domain).toBeUndefined();
  });

  it('review: a sign-in on a sibling host under cookie_domain but not under the app\'s domain (Gatehouse\'s own host) keeps host-only cookies', async () => {
    const shared = await createApp(env.server, { args: ['--domain', 'anything.shared.example.test', '--cookie-domain', 'shared.example.test'] });
    const user = await verifiedUser(env, shared);
    for (const host of ['gatehouse.shared.example.test', 'api.shared.example.test']) {
      const signIn = await api(env.server, 'POST', '/v1/signins', { publishableKey: shared.publishable_key, headers: { host }, body: { email: user.email, password: user.password, strategy: 'password' } });
      expect(signIn.status, host).toBe(200);
      expect(setCookies(signIn.headers).__session!.attributes.domain, host).toBeUndefined();
    }
    // On the app's own domain it still gets the cookie domain.
    const own = await api(env.server, 'POST', '/v1/signins', { headers: { host: 'anything.shared.example.test' }, body: { email: user.email, password: user.password, strategy: 'password' } });
    expect(setCookies(own.headers).__session!.attributes.domain).toBe('shared.example.test');
  });

  it('review: refused domains and cookie domains: IP, localhost, a public suffix, one holding another app\'s domain, a domain under another\'s cookie domain', async () => {
    const refused = async (args: string[]) => createApp(env.server, { args }).then(() => 'created', (error: Error) => error.message);
    expect(await refused(['--domain', '127.0.0.1'])).toMatch(/own host|IP address or localhost/);
    expect(await refused(['--domain', 'localhost'])).toMatch(/IP address or localhost/);
    expect(await refused(['--domain', 'shop.github.io', '--cookie-domain', 'github.io'])).toMatch(/public suffix/);
    expect(await refused(['--domain', 'shop.example.co.uk', '--cookie-domain', 'co.uk'])).toMatch(/public suffix/);
    await createApp(env.server, { args: ['--domain', 'www.victim.example.test'] });
    expect(await refused(['--domain', 'auth.victim.example.test', '--cookie-domain', 'victim.example.test'])).toMatch(/another application's domain/);
    // HOST's app has cookie_domain cookies.example.test: no other app's domain may sit under it.
    expect(await refused(['--domain', 'other.cookies.example.test'])).toMatch(/another application's cookie_domain/);
    expect(await refused(['--domain', 'auth.victim2.example.test', '--cookie-domain', 'victim2.example.test'])).toBe('created');
  });
});

describe('review: PUBLIC_BASE_URL\'s host is no app\'s', () => {
  it('a domain equal to it, or a cookie domain containing it, is refused; a sibling domain alone is not', async () => {
    const own = await startAuthServer({ PUBLIC_BASE_URL: 'http://gatehouse.shared.example.test:8080' });
    try {
      const refused = async (args: string[]) => createApp(own.server, { args }).then(() => 'created', (error: Error) => error.message);
      expect(await refused(['--domain', 'gatehouse.shared.example.test'])).toMatch(/own host/);
      expect(await refused(['--domain', 'anything.shared.example.test', '--cookie-domain', 'shared.example.test'])).toMatch(/own host/);
      expect(await refused(['--domain', 'anything.shared.example.test'])).toBe('created');
    } finally {
      await own.stop();
    }
  });
});
