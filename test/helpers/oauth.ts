import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { startAuthServer, type AuthEnv } from './accounts.js';
import { api, createApp, type TestApp } from './fixtures.js';
import { OAuthBrowser, type PageResponse } from './oauth-browser.js';
import { createIssuer, newAppleKey, type AppleKey, type TestIssuer } from './oidc-provider.js';
import type { TestServer } from './server.js';

// Shared set-up of the OAuth contract tests: "Google" and "Apple" providers on loopback, a Gatehouse
// pointed at them, and apps with their own clients at each provider.

export const SITE = 'http://localhost:5173';
export const RETURN = `${SITE}/signed-in`;

export interface OAuthClientOfApp {
  app: TestApp;
  google: { clientId: string; clientSecret: string };
  apple: { clientId: string; key: AppleKey };
}

export interface OAuthEnv {
  env: AuthEnv;
  server: TestServer;
  google: TestIssuer;
  apple: TestIssuer;
  apps: OAuthClientOfApp[];
  stop(): Promise<void>;
}

/** Starts both providers and a Gatehouse pointed at them; `appCount` apps, each with clients at both, configured. */
export async function startOAuthEnv(appCount = 2, extraEnv: Record<string, string> = {}): Promise<OAuthEnv> {
  const clients = Array.from({ length: appCount }, (_, i) => ({
    google: { clientId: `google-client-${i}`, clientSecret: `gsecret-${i}-${randomBytes(12).toString('hex')}` },
    apple: { clientId: `com.example.app${i}`, key: newAppleKey() },
  }));
  const google = await createIssuer('google', clients.map((c) => c.google));
  const apple = await createIssuer('apple', clients.map((c) => ({ clientId: c.apple.clientId, apple: c.apple.key })));
  const env = await startAuthServer({ GOOGLE_ISSUER: google.issuer, APPLE_ISSUER: apple.issuer, ...extraEnv });
  const server = env.server;
  await google.start(`${server.url}/v1/oauth/google/callback`);
  await apple.start(`${server.url}/v1/oauth/apple/callback`);
  const apps: OAuthClientOfApp[] = [];
  for (const [i, c] of clients.entries()) {
    const app = await createApp(server, { name: `OAuth app ${i}`, args: ['--allowed-origin', SITE] });
    await configureGoogle(server, app, c.google);
    await configureApple(server, app, c.apple);
    apps.push({ app, ...c });
  }
  return {
    env,
    server,
    google,
    apple,
    apps,
    stop: async () => {
      await env.stop();
      await google.stop();
      await apple.stop();
    },
  };
}

export async function configureGoogle(server: TestServer, app: TestApp, c: { clientId: string; clientSecret: string }) {
  const res = await api(server, 'PUT', '/v1/oauth/providers/google', { bearer: app.secret_key, body: { client_id: c.clientId, client_secret: c.clientSecret } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

export async function configureApple(server: TestServer, app: TestApp, c: { clientId: string; key: AppleKey }) {
  const res = await api(server, 'PUT', '/v1/oauth/providers/apple', {
    bearer: app.secret_key,
    body: { client_id: c.clientId, team_id: c.key.teamId, key_id: c.key.keyId, private_key: c.key.privateKeyPem },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res;
}

/**
 * What the app's page does: asks Gatehouse for the provider's authorization URL, in `browser` (a fresh
 * one when none is given), which keeps the browser-binding cookie the callback then requires.
 */
export async function authorize(server: TestServer, app: TestApp, provider: string, redirectUrl = RETURN, browser = new OAuthBrowser()) {
  const res = await browser.request('GET', `${server.url}/v1/oauth/${provider}/authorize?redirect_url=${encodeURIComponent(redirectUrl)}`, {
    // A page's fetch, not a navigation: errors come back as {detail}.
    headers: { 'x-publishable-key': app.publishable_key, accept: 'application/json' },
  });
  return { status: res.status, headers: res.headers, body: res.json, browser };
}

/** A whole sign-in: authorize, the provider's login and consent pages, the callback. Returns the callback's answer. */
export async function signInWith(
  o: Pick<OAuthEnv, 'server'>,
  app: TestApp,
  provider: string,
  login: string,
  options: { browser?: OAuthBrowser; redirectUrl?: string; editUrl?: (url: URL) => void; extraFields?: Record<string, string> } = {},
): Promise<{ callback: PageResponse; browser: OAuthBrowser }> {
  const browser = options.browser ?? new OAuthBrowser();
  const start = await authorize(o.server, app, provider, options.redirectUrl, browser);
  expect(start.status, JSON.stringify(start.body)).toBe(200);
  const url = new URL(start.body.authorization_url);
  options.editUrl?.(url);
  const callback = await browser.signInAtProvider(url.href, login, `${o.server.url}/v1/oauth/${provider}/callback`, options.extraFields);
  return { callback, browser };
}

/** GET /v1/me as the browser (its __session cookie) for the app. */
export function me(o: Pick<OAuthEnv, 'server'>, browser: OAuthBrowser, app: TestApp) {
  return browser.request('GET', `${o.server.url}/v1/me`, { headers: { 'x-publishable-key': app.publishable_key } });
}

/** The `error` a failed callback sent the browser back with (it must go back to the redirect_url). */
export function errorOf(callback: PageResponse, redirectUrl = RETURN): string | null {
  expect(callback.status, callback.text).toBe(302);
  expect(callback.location!.href.startsWith(redirectUrl)).toBe(true);
  return callback.location!.searchParams.get('error');
}

let n = 0;
/** A provider account with a unique subject and email. */
export function newAccount(issuer: TestIssuer, fields: { email?: string; email_verified?: boolean; name?: string } = {}) {
  const sub = `${issuer.kind}-sub-${Date.now().toString(36)}-${n++}`;
  const account = { email: `${sub}@example.com`, email_verified: true, ...fields };
  issuer.accounts.set(sub, account);
  return { sub, ...account };
}

/**
 * Moves an OAuth state's expiry into the past, as if its 10 minutes had gone by (the server's clock is
 * real, so the test moves the row instead of waiting).
 */
export async function expireOAuthState(databaseUrl: string, state: string): Promise<void> {
  const { createHash } = await import('node:crypto');
  const hash = createHash('sha256').update(state).digest('hex');
  const past = new Date(Date.now() - 1000).toISOString();
  if (databaseUrl.startsWith('sqlite:')) {
    const { default: SQLite } = await import('better-sqlite3');
    const db = new SQLite(databaseUrl.slice('sqlite:'.length));
    try {
      db.pragma('busy_timeout = 15000');
      expect(db.prepare('UPDATE oauth_states SET expires_at = ? WHERE state_hash = ?').run(past, hash).changes).toBe(1);
    } finally {
      db.close();
    }
    return;
  }
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    expect((await client.query('UPDATE oauth_states SET expires_at = $1 WHERE state_hash = $2', [past, hash])).rowCount).toBe(1);
  } finally {
    await client.end();
  }
}
