import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setCookies, startAuthServer, verifiedUser, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';

// Issue 48, the app option cookie_domain (docs/browser.md, "Your own API"), at the HTTP level: `__session`
// carries Domain=<cookie_domain> on answers to requests under it (sign-in, refresh), never `__refresh`; a request
// by another host name keeps host-only cookies (a browser would refuse the Domain); logout expires both kinds.

let env: AuthEnv;
let app: TestApp;
const HOST = 'auth.cookies.example.test';

beforeAll(async () => {
  env = await startAuthServer();
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
});
