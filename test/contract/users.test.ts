import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/users.md (sessions, server-side creation) and docs/api.md.

const MAX_LIFETIME = 600;
let server: TestServer;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  // Rate limits at their defaults: the Secret routes must not be limited at all.
  server = await startServer({ MAX_SIGNIN_TOKEN_LIFETIME_SECONDS: String(MAX_LIFETIME), RATE_LIMITS: '' });
  app = await createApp(server, { name: 'Shop' });
  other = await createApp(server, { tenantId: app.tenant_id, name: 'Blog' });
});
afterAll(async () => {
  await server?.stop();
});

let counter = 0;
const uniqueEmail = (name = 'user') => `${name}.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;

const secret = (method: string, path: string, body?: unknown, key = app.secret_key) => api(server, method, path, { bearer: key, body });

async function createUser(email = uniqueEmail(), password?: string) {
  const res = await secret('POST', '/v1/users', password === undefined ? { email } : { email, password });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { id: string; email: string };
}

async function signInToken(userId: string, expiresIn?: number, key = app.secret_key) {
  return secret('POST', '/v1/sign_in_tokens', expiresIn === undefined ? { user_id: userId } : { user_id: userId, expires_in_seconds: expiresIn }, key);
}

const me = (token: string, publishableKey = app.publishable_key) => api(server, 'GET', '/v1/me', { publishableKey, bearer: token });

describe('4.5 POST /v1/users', () => {
  it('201 with the user object; email_verified false; no email is sent and no rate limit applies', async () => {
    const before = Date.now();
    const emails = Array.from({ length: 12 }, () => uniqueEmail('bulk'));
    // 12 > signup_ip's 10 per minute: server-side creation is not counted.
    for (const email of emails) await createUser(email);
    const res = await secret('POST', '/v1/users', { email: 'Mixed.Case@Example.com' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      email: 'Mixed.Case@Example.com',
      email_verified: false,
      is_bot: false,
      public_metadata: {},
      private_metadata: {},
      unsafe_metadata: {},
      banned: false,
      external_id: null,
      locale: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: res.body.created_at,
    });
    expect(Date.parse(res.body.created_at)).toBeGreaterThanOrEqual(before - 1000);
    expect(await server.logs()).not.toMatch(/email written to the outbox/);
  });

  it('409 when the email exists, whatever its case', async () => {
    const email = uniqueEmail('Dup');
    await createUser(email);
    const again = await secret('POST', '/v1/users', { email: email.toUpperCase() });
    expect(again.status).toBe(409);
    expect(Object.keys(again.body)).toEqual(['detail', 'code']);
  });

  it('the same email may exist once in each app', async () => {
    const email = uniqueEmail();
    await createUser(email);
    expect((await secret('POST', '/v1/users', { email }, other.secret_key)).status).toBe(201);
  });

  it('400 for a missing or malformed email, and a password under 8 or over 256 characters', async () => {
    for (const body of [{}, { email: 'not-an-email' }, { email: `${'a'.repeat(250)}@example.com` }, { email: uniqueEmail(), password: 'short' }, { email: uniqueEmail(), password: 'x'.repeat(257) }]) {
      const res = await secret('POST', '/v1/users', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
  });

  it('a user created with a password signs in with it at once; password null is a user without one', async () => {
    const email = uniqueEmail();
    await createUser(email, 'correct horse battery');
    const signin = await api(server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password: 'correct horse battery', strategy: 'password' } });
    expect(signin.status).toBe(200);
    expect((await me(signin.body.access_token)).body).toMatchObject({ email, email_verified: false, is_bot: false });
    expect((await secret('POST', '/v1/users', { email: uniqueEmail(), password: null })).status).toBe(201);
  });

  it('400 when a password is sent to an app with passwords off', async () => {
    const noPasswords = await createApp(server, { args: ['--passwords', 'off'] });
    const refused = await secret('POST', '/v1/users', { email: uniqueEmail(), password: 'correct horse battery' }, noPasswords.secret_key);
    expect(refused.status).toBe(400);
    expect(refused.body.detail).toMatch(/password/i);
    expect((await secret('POST', '/v1/users', { email: uniqueEmail() }, noPasswords.secret_key)).status).toBe(201);
  });
});

describe('4.5 GET /v1/users/{user_id}', () => {
  it('200 with the same user object', async () => {
    const created = await createUser();
    const res = await secret('GET', `/v1/users/${created.id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual(created);
  });

  it('404 for an unknown id; 400 for an id that is not a UUID', async () => {
    const unknown = await secret('GET', '/v1/users/00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(Object.keys(unknown.body)).toEqual(['detail', 'code']);
    expect((await secret('GET', '/v1/users/not-a-uuid')).status).toBe(400);
  });
});

describe('4.5 GET /v1/users and contract 9', () => {
  let listed: TestApp;
  const created: string[] = [];

  beforeAll(async () => {
    listed = await createApp(server, { tenantId: app.tenant_id, name: 'Listed' });
    for (let i = 0; i < 55; i++) {
      const res = await secret('POST', '/v1/users', { email: `member${i}@list.example.com` }, listed.secret_key);
      created.push(res.body.id);
    }
  });
  const list = (query: string) => secret('GET', `/v1/users${query}`, undefined, listed.secret_key);

  it('limit defaults to 50, offset to 0; newest first; total counts every user (include_total accepted, changes nothing)', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.total).toBe(55);
    expect(res.body.next_cursor).toEqual(expect.any(String));
    expect((await list('?include_total=true')).body.total).toBe(55);
    expect((await list('?include_total=false')).body.total).toBe(55);
    expect(res.body.users).toHaveLength(50);
    const times = res.body.users.map((u: { created_at: string }) => u.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(res.body.users[0]).toEqual({ id: expect.any(String), email: expect.any(String), email_verified: false, is_bot: false, public_metadata: {}, private_metadata: {}, unsafe_metadata: {}, banned: false, external_id: null, locale: null, created_at: expect.any(String), updated_at: expect.any(String) });
  });

  it('pages with limit and offset cover every user once', async () => {
    const seen: string[] = [];
    for (let offset = 0; offset < 60; offset += 20) {
      const res = await list(`?limit=20&offset=${offset}`);
      expect(res.status).toBe(200);
      expect(res.body.total).toBe(55);
      seen.push(...res.body.users.map((u: { id: string }) => u.id));
    }
    expect(seen).toHaveLength(55);
    expect(new Set(seen)).toEqual(new Set(created));
    expect((await list('?offset=55')).body.users).toEqual([]);
    expect((await list('?limit=200')).body.users).toHaveLength(55);
  });

  it('keyset pages (cursor, next_cursor) are complete and stable: users created meanwhile shift nothing', async () => {
    const all = (await list('?limit=200')).body.users.map((u: { id: string }) => u.id);
    expect(new Set(all)).toEqual(new Set(created));
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const res = await list(`?limit=7${cursor ? `&cursor=${cursor}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.users.map((u: { id: string }) => u.id));
      cursor = res.body.next_cursor;
      // A newer user arrives between pages: it sorts before the cursor, so no page repeats or skips a user.
      if (pages++ === 2) await secret('POST', '/v1/users', { email: uniqueEmail('meanwhile') }, listed.secret_key);
    } while (cursor);
    expect(pages).toBe(8);
    expect(seen).toEqual(all);
    // The same walk as offsets answers the same order, and a cursor and an offset combine (offset after the cursor).
    const current = (await list('?limit=200')).body.users.map((u: { id: string }) => u.id);
    const first = (await list('?limit=5')).body;
    const after = (await list(`?limit=5&cursor=${first.next_cursor}&offset=3`)).body;
    expect(after.users.map((u: { id: string }) => u.id)).toEqual(current.slice(8, 13));
  });

  it('400 for a cursor this service did not give', async () => {
    for (const cursor of ['nope', Buffer.from('["x","y"]').toString('base64url'), Buffer.from('{"a":1}').toString('base64url')]) {
      const res = await list(`?cursor=${cursor}`);
      expect(res.status, cursor).toBe(400);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
  });

  it('400 for limit above 200 or below 1, a negative offset, or a non-number', async () => {
    for (const query of ['?limit=201', '?limit=0', '?offset=-1', '?limit=ten', '?include_total=maybe']) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
  });

  it('email is an exact, case-insensitive filter', async () => {
    const hit = await list('?email=MEMBER7@List.Example.COM');
    expect(hit.body.total).toBe(1);
    expect(hit.body.users.map((u: { email: string }) => u.email)).toEqual(['member7@list.example.com']);
    expect(hit.body.next_cursor).toBeNull();
    const partial = await list('?email=member7');
    expect(partial.body).toEqual({ users: [], total: 0, next_cursor: null });
  });
});

describe('4.5 POST /v1/sessions/revoke and part 3 (sessions)', () => {
  it('revokes: the access token is refused at once, the refresh token dies; a second revoke is 404', async () => {
    const user = await createUser();
    const session = (await signInToken(user.id)).body;
    expect((await me(session.token)).status).toBe(200);
    const res = await secret('POST', `/v1/sessions/revoke?session_id=${session.session_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'revoked' });
    expect((await me(session.token)).status).toBe(401);
    const refresh = await api(server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token: session.refresh_token } });
    expect(refresh.status).toBe(401);
    const again = await secret('POST', `/v1/sessions/revoke?session_id=${session.session_id}`);
    expect(again.status).toBe(404);
    expect(Object.keys(again.body)).toEqual(['detail', 'code']);
  });

  it('404 for an unknown session; 400 for a missing or malformed session_id', async () => {
    expect((await secret('POST', '/v1/sessions/revoke?session_id=00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await secret('POST', '/v1/sessions/revoke')).status).toBe(400);
    expect((await secret('POST', '/v1/sessions/revoke?session_id=nope')).status).toBe(400);
  });
});

describe('4.5 POST /v1/sign_in_tokens and contract 2', () => {
  const jwks = () => createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json?app_id=${app.app_id}`));

  it('200 with the result of part 2; the token is a JWT verified offline, exp = expires_at, 300 s by default', async () => {
    const user = await createUser();
    const before = Math.floor(Date.now() / 1000);
    const res = await signInToken(user.id);
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'refresh_token', 'session_id', 'token', 'user_id']);
    expect(res.body.user_id).toBe(user.id);
    expect(res.body.refresh_token).toMatch(/^rt_[A-Za-z0-9_-]{70}$/);
    const { payload, protectedHeader } = await jwtVerify(res.body.token, jwks(), { issuer: server.url, audience: app.app_id, algorithms: ['RS256'] });
    expect(protectedHeader.kid).toBe(`${app.app_id}:1`);
    expect(payload).toMatchObject({ sub: user.id, sid: res.body.session_id, email: user.email, email_verified: false });
    expect(payload.exp! * 1000).toBe(Date.parse(res.body.expires_at));
    expect(payload.exp! - before).toBeGreaterThanOrEqual(299);
    expect(payload.exp! - before).toBeLessThanOrEqual(302);
    expect((await me(res.body.token)).body.user_id).toBe(user.id);
  });

  it('expires_in_seconds is honoured, and clamped to MAX_SIGNIN_TOKEN_LIFETIME_SECONDS', async () => {
    const user = await createUser();
    for (const [asked, expected] of [[120, 120], [MAX_LIFETIME * 100, MAX_LIFETIME]]) {
      const before = Math.floor(Date.now() / 1000);
      const res = await signInToken(user.id, asked);
      expect(res.status).toBe(200);
      const { payload } = await jwtVerify(res.body.token, jwks());
      expect(payload.exp! * 1000).toBe(Date.parse(res.body.expires_at));
      expect(payload.exp! - before).toBeGreaterThanOrEqual(expected - 1);
      expect(payload.exp! - before).toBeLessThanOrEqual(expected + 2);
    }
  });

  it('400 for expires_in_seconds ≤ 0 or not a whole number, or a malformed user_id; 404 for an unknown user', async () => {
    const user = await createUser();
    for (const value of [0, -5, 1.5, 'soon']) {
      expect((await secret('POST', '/v1/sign_in_tokens', { user_id: user.id, expires_in_seconds: value })).status, String(value)).toBe(400);
    }
    expect((await secret('POST', '/v1/sign_in_tokens', { user_id: 'nope' })).status).toBe(400);
    const unknown = await signInToken('00000000-0000-4000-8000-000000000000');
    expect(unknown.status).toBe(404);
    expect(Object.keys(unknown.body)).toEqual(['detail', 'code']);
  });

  it('the refresh token rotates once through POST /v1/tokens/session', async () => {
    const user = await createUser();
    const { refresh_token } = (await signInToken(user.id)).body;
    const refresh = (token: string) => api(server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token: token } });
    const first = await refresh(refresh_token);
    expect(first.status).toBe(200);
    expect(first.body.user_id).toBe(user.id);
    expect((await refresh(refresh_token)).status).toBe(401);
  });
});

describe('contract 0 and part 5: only the secret key of the same app', () => {
  let user: { id: string; email: string };
  let session: { token: string; session_id: string };
  const routes = () => [
    ['GET', '/v1/users', undefined],
    ['POST', '/v1/users', { email: uniqueEmail() }],
    ['GET', `/v1/users/${user.id}`, undefined],
    ['POST', `/v1/sessions/revoke?session_id=${session.session_id}`, undefined],
    ['POST', '/v1/sign_in_tokens', { user_id: user.id }],
  ] as const;

  beforeAll(async () => {
    user = await createUser();
    session = (await signInToken(user.id)).body;
  });

  it('401 without a key or with an unknown secret key', async () => {
    for (const [method, path, body] of routes()) {
      expect((await api(server, method, path, { body })).status, `${method} ${path}`).toBe(401);
      expect((await api(server, method, path, { body, bearer: `sk_${'x'.repeat(48)}` })).status, `${method} ${path}`).toBe(401);
    }
  });

  it('403 with the publishable key or an access token instead of the secret key, with or without the publishable key', async () => {
    for (const [method, path, body] of [...routes(), ['GET', '/v1/billing', undefined] as const]) {
      const withPublishable = await api(server, method, path, { body, bearer: app.publishable_key });
      expect(withPublishable.status, `${method} ${path}`).toBe(403);
      const withSession = await api(server, method, path, { body, bearer: session.token, publishableKey: app.publishable_key });
      expect(withSession.status, `${method} ${path}`).toBe(403);
      expect(withSession.body.detail).toMatch(/secret key/);
      // A user's access token sent alone, as a server holding one would: still a valid credential (403).
      const tokenAlone = await api(server, method, path, { body, bearer: session.token });
      expect(tokenAlone.status, `${method} ${path}`).toBe(403);
      expect(tokenAlone.body.detail).toBe('this route needs the secret key; a session cannot use it');
    }
  });

  it('401 for an access token that is not valid: forged, or of another app than the publishable key names', async () => {
    const [head, payload] = session.token.split('.');
    const forged = `${head}.${payload}.${'A'.repeat(342)}`;
    for (const [method, path, body] of routes()) {
      expect((await api(server, method, path, { body, bearer: forged })).status, `${method} ${path}`).toBe(401);
      expect((await api(server, method, path, { body, bearer: session.token, publishableKey: other.publishable_key })).status, `${method} ${path}`).toBe(401);
    }
  });

  it("another app's secret key sees none of this app's users and cannot revoke its sessions", async () => {
    const key = other.secret_key;
    expect((await secret('GET', `/v1/users/${user.id}`, undefined, key)).status).toBe(404);
    expect((await secret('GET', `/v1/users?email=${encodeURIComponent(user.email)}`, undefined, key)).body).toEqual({ users: [], total: 0, next_cursor: null });
    // A cursor made from this app's list positions the other app's list only among its own users.
    const mine = (await secret('GET', '/v1/users?limit=1')).body;
    const theirs = await secret('GET', `/v1/users?limit=200&cursor=${mine.next_cursor}`, undefined, key);
    expect(theirs.status).toBe(200);
    expect(theirs.body.users.map((u: { id: string }) => u.id)).not.toContain(user.id);
    expect((await secret('POST', '/v1/sign_in_tokens', { user_id: user.id }, key)).status).toBe(404);
    expect((await secret('POST', `/v1/sessions/revoke?session_id=${session.session_id}`, undefined, key)).status).toBe(404);
    expect((await me(session.token)).status).toBe(200);
    // A token of this app is no credential at the other app either.
    expect((await me(session.token, other.publishable_key)).status).toBe(401);
  });
});
