import { randomBytes } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Issue 14: the hot paths got caches (compiled statements, one joined session query, verified tokens).
// Each must be exact: the same answers as before, and nothing the contract says takes effect at once is
// remembered. Two nodes share one database (a SQLite file or a PostgreSQL database); the second serves
// requests that the first one has already cached.
let a: TestServer;
let b: TestServer;
let app: TestApp;
let other: TestApp;
// One issuer and one master key: the nodes of one deployment (either signs tokens the other verifies).
const shared = { PUBLIC_BASE_URL: 'https://auth.example.test', MASTER_KEY: randomBytes(32).toString('base64') };

beforeAll(async () => {
  a = await startServer(shared);
  b = await startServer({ ...shared, DATABASE_URL: a.databaseUrl });
  app = await createApp(a, { args: ['--allowed-origin', 'http://localhost:3000'] });
  other = await createApp(a);
});
afterAll(async () => {
  await b?.stop();
  await a?.stop();
});

let n = 0;
async function signedIn(target: TestApp = app) {
  const email = `perf-${Date.now().toString(36)}-${(n++).toString(36)}@example.com`;
  const created = await api(a, 'POST', '/v1/users', { bearer: target.secret_key, body: { email, password: 'correct horse battery' } });
  expect(created.status).toBe(201);
  const res = await api(a, 'POST', '/v1/signins', { publishableKey: target.publishable_key, body: { email, password: 'correct horse battery' } });
  expect(res.status).toBe(200);
  return { email, userId: created.body.id as string, emailVerified: created.body.email_verified as boolean, ...(res.body as { access_token: string; refresh_token: string; session_id: string }) };
}

const me = (server: TestServer, token: string, key = app.publishable_key) => api(server, 'GET', '/v1/me', { publishableKey: key, bearer: token });

describe('GET /v1/me answers each user their own data, however often it is asked (statement and token caches)', () => {
  it('interleaved users on both nodes always get their own user', async () => {
    const users = await Promise.all([signedIn(), signedIn(), signedIn()]);
    for (let round = 0; round < 5; round += 1) {
      for (const user of users) {
        for (const server of [a, b]) {
          const res = await me(server, user.access_token);
          expect(res.status).toBe(200);
          expect(res.body).toEqual({ user_id: user.userId, email: user.email, email_verified: user.emailVerified, is_bot: false, public_metadata: {}, unsafe_metadata: {}, locale: null, organization: null });
        }
      }
    }
  });

  it('a change to the user shows on the next request (the user row is read every time)', async () => {
    const user = await signedIn();
    expect((await me(a, user.access_token)).body.email).toBe(user.email);
    await execDatabase(a.databaseUrl, `update users set email_verified = 1 - email_verified, email = 'changed-' || email where id = '${user.userId}'`);
    for (const server of [a, b]) {
      const after = await me(server, user.access_token);
      expect(after.status).toBe(200);
      expect(after.body).toEqual({ user_id: user.userId, email: `changed-${user.email}`, email_verified: !user.emailVerified, is_bot: false, public_metadata: {}, unsafe_metadata: {}, locale: null, organization: null });
    }
  });
});

describe('a revoked session is refused at once, on every node, although its token was verified before', () => {
  it('logout on node A: node A and node B refuse the very next request', async () => {
    const user = await signedIn();
    for (const server of [a, b, a, b]) expect((await me(server, user.access_token)).status).toBe(200);
    expect((await api(a, 'POST', '/v1/sessions/logout', { publishableKey: app.publishable_key, bearer: user.access_token })).status).toBe(200);
    for (const server of [a, b]) {
      const res = await me(server, user.access_token);
      expect(res.status).toBe(401);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
  });

  it('revocation by the secret API on node B: node A refuses at once; the cookie path too', async () => {
    const user = await signedIn();
    expect((await me(a, user.access_token)).status).toBe(200);
    const cookie = await api(a, 'GET', '/v1/me', { publishableKey: app.publishable_key, headers: { cookie: `__session=${user.access_token}` } });
    expect(cookie.status).toBe(200);
    expect((await api(b, 'POST', `/v1/sessions/revoke?session_id=${user.session_id}`, { bearer: app.secret_key })).status).toBe(200);
    expect((await me(a, user.access_token)).status).toBe(401);
    const cookieAfter = await api(a, 'GET', '/v1/me', { publishableKey: app.publishable_key, headers: { cookie: `__session=${user.access_token}` } });
    expect(cookieAfter.status).toBe(401);
  });

  it('a session whose row expired is refused at once although its access token has not', async () => {
    const user = await signedIn();
    expect((await me(a, user.access_token)).status).toBe(200);
    await execDatabase(a.databaseUrl, `update sessions set expires_at = '2000-01-01T00:00:00.000Z' where id = '${user.session_id}'`);
    expect((await me(a, user.access_token)).status).toBe(401);
    expect((await me(b, user.access_token)).status).toBe(401);
  });
});

describe('app isolation on the joined session path', () => {
  it("401 for app A's verified token with app B's key, before and after it was cached; then A's key still works", async () => {
    const user = await signedIn();
    expect((await me(a, user.access_token, other.publishable_key)).status).toBe(401);
    expect((await me(a, user.access_token)).status).toBe(200);
    const cross = await me(a, user.access_token, other.publishable_key);
    expect(cross.status).toBe(401);
    expect(Object.keys(cross.body)).toEqual(['detail', 'code']);
    expect((await me(a, user.access_token)).status).toBe(200);
  });

  it('a rotated-away publishable key is refused at once for a token verified before', async () => {
    const own = await createApp(a);
    const user = await signedIn(own);
    expect((await me(a, user.access_token, own.publishable_key)).status).toBe(200);
    await execDatabase(a.databaseUrl, `update api_keys set expires_at = '2000-01-01T00:00:00.000Z' where app_id = '${own.app_id}' and kind = 'publishable'`);
    expect((await me(a, user.access_token, own.publishable_key)).status).toBe(401);
    expect((await me(b, user.access_token, own.publishable_key)).status).toBe(401);
  });

  it('cookie-authenticated unsafe requests still need an allowed Origin (CSRF rule on the joined path)', async () => {
    const user = await signedIn();
    const headers = { cookie: `__session=${user.access_token}`, 'content-type': 'application/json' };
    const refused = await api(a, 'POST', '/v1/sessions/logout', { publishableKey: app.publishable_key, headers: { ...headers, origin: 'https://evil.example' } });
    expect(refused.status).toBe(403);
    expect((await me(a, user.access_token)).status).toBe(200);
  });
});

// A node that has seen a publishable key name an app skips the key lookup on refresh: the rotation's own
// statement confirms the key and writes nothing unless it is live and the tenant not paused
// (guards.presumed). Every refusal must stay as it was, and a refused refresh must consume nothing.
describe('refresh with a publishable key a node has used before: the key is still checked every time', () => {
  const refresh = (server: TestServer, key: string, token: string) => api(server, 'POST', '/v1/tokens/session', { publishableKey: key, body: { refresh_token: token } });

  /** A signed-in user of an app of its own tenant, refreshed once on each node (each has seen the key). */
  async function refreshedOnBothNodes() {
    const own = await createApp(a);
    let token = (await signedIn(own)).refresh_token;
    for (const server of [a, b]) {
      const res = await refresh(server, own.publishable_key, token);
      expect(res.status).toBe(200);
      token = res.body.refresh_token;
    }
    return { own, token };
  }

  it('an expired key: 401 on both nodes and the token is not consumed; live again, it rotates once', async () => {
    const { own, token } = await refreshedOnBothNodes();
    await execDatabase(a.databaseUrl, `update api_keys set expires_at = '2000-01-01T00:00:00.000Z' where app_id = '${own.app_id}' and kind = 'publishable'`);
    for (const server of [a, b, a]) {
      const res = await refresh(server, own.publishable_key, token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'invalid publishable key', code: 'unauthenticated' });
    }
    await execDatabase(a.databaseUrl, `update api_keys set expires_at = null where app_id = '${own.app_id}' and kind = 'publishable'`);
    const back = await refresh(b, own.publishable_key, token);
    expect(back.status).toBe(200);
    expect((await me(a, back.body.access_token, own.publishable_key)).status).toBe(200);
    expect((await refresh(a, own.publishable_key, token)).status).toBe(401);
  });

  it('a paused tenant: 402 on both nodes and the token is not consumed; after a credit it rotates', async () => {
    const { own, token } = await refreshedOnBothNodes();
    const credit = async (amount: string) => {
      const result = await a.cli(['billing', 'credit', '--tenant', own.tenant_id, '--amount-usd', amount, '--note', 'test', '--json']);
      expect(result.code, result.stderr).toBe(0);
    };
    await credit('-1');
    for (const server of [a, b]) {
      const res = await refresh(server, own.publishable_key, token);
      expect(res.status).toBe(402);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
    await credit('1');
    const back = await refresh(a, own.publishable_key, token);
    expect(back.status).toBe(200);
    expect(back.body.session_id).toBeTypeOf('string');
  });

  it("another app's used key: 401 for the token, which still rotates with its own key", async () => {
    const { own, token } = await refreshedOnBothNodes();
    const user = await signedIn();
    for (const server of [a, b]) expect((await me(server, user.access_token)).status).toBe(200);
    for (const server of [a, b]) {
      const res = await refresh(server, app.publishable_key, token);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'invalid or expired refresh token', code: 'invalid_token' });
    }
    expect((await refresh(b, own.publishable_key, token)).status).toBe(200);
  });
});

describe('password sign-in reads the key and the user in one statement: the key is still checked every time', () => {
  const signIn = (server: TestServer, key: string, email: string, password = 'correct horse battery') =>
    api(server, 'POST', '/v1/signins', { publishableKey: key, body: { email, password } });

  it('an expired key: 401 on both nodes for a user who signed in with it before; live again, it signs in', async () => {
    const own = await createApp(a);
    const { email } = await signedIn(own);
    expect((await signIn(b, own.publishable_key, email)).status).toBe(200);
    await execDatabase(a.databaseUrl, `update api_keys set expires_at = '2000-01-01T00:00:00.000Z' where app_id = '${own.app_id}' and kind = 'publishable'`);
    for (const server of [a, b]) {
      const res = await signIn(server, own.publishable_key, email);
      expect(res.status).toBe(401);
      expect(res.body).toEqual({ detail: 'invalid publishable key', code: 'unauthenticated' });
    }
    await execDatabase(a.databaseUrl, `update api_keys set expires_at = null where app_id = '${own.app_id}' and kind = 'publishable'`);
    expect((await signIn(b, own.publishable_key, email)).status).toBe(200);
  });

  it('a paused tenant: 402 on both nodes, with the right password or a wrong one; after a credit, 200', async () => {
    const own = await createApp(a);
    const { email } = await signedIn(own);
    const credit = async (amount: string) => {
      const result = await a.cli(['billing', 'credit', '--tenant', own.tenant_id, '--amount-usd', amount, '--note', 'test', '--json']);
      expect(result.code, result.stderr).toBe(0);
    };
    await credit('-1');
    for (const server of [a, b]) {
      for (const password of ['correct horse battery', 'a wrong password']) {
        const res = await signIn(server, own.publishable_key, email, password);
        expect(res.status).toBe(402);
        expect(Object.keys(res.body)).toEqual(['detail', 'code']);
      }
    }
    await credit('1');
    expect((await signIn(a, own.publishable_key, email)).status).toBe(200);
  });

  it("another app's key finds no user of this app: 401 invalid credentials, the same answer as an unknown email", async () => {
    const user = await signedIn();
    const foreign = await signIn(a, other.publishable_key, user.email);
    const unknown = await signIn(a, other.publishable_key, `nobody-${n++}@example.com`);
    expect(foreign.status).toBe(401);
    expect(foreign.body).toEqual(unknown.body);
    expect(JSON.stringify(foreign.body)).not.toContain(user.userId);
    // The user of `other` with the same email signs in to `other`, and gets its own id.
    const twin = await api(a, 'POST', '/v1/users', { bearer: other.secret_key, body: { email: user.email, password: 'another good password' } });
    expect(twin.status).toBe(201);
    const own = await signIn(b, other.publishable_key, user.email, 'another good password');
    expect(own.status).toBe(200);
    expect(own.body.user_id).toBe(twin.body.id);
    expect((await signIn(b, other.publishable_key, user.email)).status).toBe(401);
  });
});

describe('password hashing: the thread pool is sized before it starts (issue 14)', () => {
  const hashingLine = (output: string) => {
    const line = output.split('\n').find((l) => l.includes('"msg":"password hashing"'));
    expect(line, 'the start-up line about password hashing').toBeDefined();
    return JSON.parse(line!) as { thread_pool: number; password_hash_slots: number };
  };
  const threads = (server: TestServer) => readdirSync(`/proc/${server.pid}/task`).length;

  // Linux: the threads are counted in /proc.
  it.skipIf(process.platform !== 'linux')('one pool thread per core, 2 to 4, unless UV_THREADPOOL_SIZE says otherwise; that many threads really run', async () => {
    const cores = availableParallelism();
    const byDefault = Math.min(4, Math.max(2, cores));
    const own = await startServer({ UV_THREADPOOL_SIZE: '' });
    const six = await startServer({ UV_THREADPOOL_SIZE: '6' });
    try {
      // Both sign a user in: argon2 and the RS256 signature ran on each pool.
      for (const server of [own, six]) {
        const target = await createApp(server);
        const email = `pool-${(n++).toString(36)}@example.com`;
        expect((await api(server, 'POST', '/v1/users', { bearer: target.secret_key, body: { email, password: 'correct horse battery' } })).status).toBe(201);
        expect((await api(server, 'POST', '/v1/signins', { publishableKey: target.publishable_key, body: { email, password: 'correct horse battery' } })).status).toBe(200);
      }
      expect(hashingLine(await own.logs())).toMatchObject({ thread_pool: byDefault, password_hash_slots: Math.min(cores, byDefault) + 1 });
      expect(hashingLine(await six.logs())).toMatchObject({ thread_pool: 6, password_hash_slots: Math.min(cores, 6) + 1 });
      // The pool libuv started has the size the entry point chose: an ES module entry would have been
      // read through a pool of 4 before any of its code ran.
      expect(threads(six) - threads(own)).toBe(6 - byDefault);
    } finally {
      await six.stop();
      await own.stop();
    }
  });
});
