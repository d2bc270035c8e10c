import { createClient, GatehouseError, MfaRequiredError, memoryStorage, type AuthEvent, type GatehouseClient, type Session } from '@gatehouse/client';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { codeFor, sharedAuthServer, uniqueEmail, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { claimsOf, codeAt, enrollTotp } from '../helpers/mfa.js';

// @gatehouse/client (packages/client) in Node against a real Gatehouse whose mail goes to an SMTP sink:
// sign-up with the proof-of-work solved in a worker thread, each sign-in, refresh and its single flight,
// auth-state events, a table's rows, an object uploaded with progress, and the typed errors.

let env: AuthEnv;
let app: TestApp;
let sibling: TestApp;
const clients: GatehouseClient[] = [];

interface Note extends Record<string, unknown> {
  title: string;
  done?: boolean;
  stars?: number;
}

function client(options: Partial<Parameters<typeof createClient>[0]> = {}): GatehouseClient {
  const made = createClient({ url: env.server.url, publishableKey: app.publishable_key, ...options });
  clients.push(made);
  return made;
}

/** A verified user made through the client: sign-up (with its proof), then the emailed code. */
async function signedIn(gatehouse = client(), email = uniqueEmail('client'), password = 'correct horse battery') {
  await gatehouse.auth.signUp({ email, password });
  const session = await gatehouse.auth.verifyOtp({ email, code: await codeFor(env.sink, email) });
  return { gatehouse, email, password, session };
}

beforeAll(async () => {
  env = await sharedAuthServer();
  // A real proof-of-work: difficulty 4 takes ~16 argon2id hashes in the worker thread.
  app = await createApp(env.server, { name: 'Client SDK', args: ['--hashcash-difficulty', '4'] });
  sibling = await createApp(env.server, { tenantId: app.tenant_id, name: 'Sibling', args: ['--allowed-origin', 'https://sibling.example.test'] });
});

afterAll(async () => {
  for (const made of clients) made.close();
  await env?.stop();
});

describe('39 @gatehouse/client: sign-up and sign-in', () => {
  it('39 client sdk: signUp solves the proof-of-work in a worker thread, the emailed code signs in, getUser answers the user', async () => {
    const gatehouse = client();
    const email = uniqueEmail('signup');
    let difficulty = -1;
    const answer = await gatehouse.auth.signUp({ email, password: 'correct horse battery', onSolving: (c) => (difficulty = c.difficulty) });
    expect(answer).toMatchObject({ status: 'verification_sent', user_id: expect.any(String) });
    expect(difficulty).toBe(4);
    const session = await gatehouse.auth.verifyOtp({ email, code: await codeFor(env.sink, email) });
    expect(session).toMatchObject({ user_id: answer.user_id, session_id: expect.any(String), access_token: expect.any(String), refresh_token: expect.stringMatching(/^rt_/) });
    expect(await gatehouse.auth.getUser()).toMatchObject({ user_id: answer.user_id, email, email_verified: true, is_bot: false });
  });

  it('39 client sdk: signInWithPassword in a fresh client; signOut revokes the session on the server', async () => {
    const { email, password } = await signedIn();
    const gatehouse = client();
    expect(await gatehouse.auth.getUser()).toBeNull();
    const session = await gatehouse.auth.signInWithPassword({ email, password });
    expect((await gatehouse.auth.getUser())?.email).toBe(email);
    await gatehouse.auth.signOut();
    expect(await gatehouse.auth.getSession()).toBeNull();
    expect(await gatehouse.auth.getUser()).toBeNull();
    const me = await api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: session.access_token });
    expect(me.status).toBe(401);
  });

  it('39 client sdk: signInWithOtp emails a code (read from the SMTP sink) and verifyOtp signs in', async () => {
    const { email } = await signedIn();
    const gatehouse = client();
    expect(await gatehouse.auth.signInWithOtp({ email })).toEqual({ status: 'magic_link_sent' });
    await gatehouse.auth.verifyOtp({ email, code: await codeFor(env.sink, email, 2) });
    expect((await gatehouse.auth.getUser())?.email).toBe(email);
  });
});

describe('39 @gatehouse/client: SSO and OAuth helpers', () => {
  it("39 client sdk: ssoUrl is this app's bridge; the token it hands the other app's page is exchanged by that app's client", async () => {
    const { gatehouse, email, session } = await signedIn();
    const bridge = new URL(gatehouse.auth.ssoUrl('https://sibling.example.test/welcome'));
    expect(bridge.pathname).toBe('/v1/sso/bridge');
    expect(bridge.searchParams.get('publishable_key')).toBe(app.publishable_key);
    // A browser would navigate there with its cookie; a Bearer client sends its token.
    const hop = await fetch(bridge, { redirect: 'manual', headers: { authorization: `Bearer ${session.access_token}` } });
    expect(hop.status).toBe(302);
    const landing = new URL(hop.headers.get('location')!);
    expect(landing.origin + landing.pathname).toBe('https://sibling.example.test/welcome');
    const other = client({ publishableKey: sibling.publishable_key });
    const theirs = await other.auth.exchangeSsoToken(landing.searchParams.get('__sso_token')!);
    expect(theirs.user_id).not.toBe(session.user_id); // each app has its own users
    expect(await other.auth.getUser()).toMatchObject({ email, email_verified: true });
  });

  it('39 client sdk: signInWithOAuth asks authorize for the provider with the landing page; a provider not configured is a 400', async () => {
    const oauth = client({ publishableKey: sibling.publishable_key });
    const offList = await oauth.auth.signInWithOAuth({ provider: 'google', redirectTo: 'https://evil.example.test/', skipBrowserRedirect: true }).catch((e: unknown) => e);
    expect(offList).toMatchObject({ status: 400, detail: "redirect_url is not on the application's allow-list" });
    const error = await oauth.auth.signInWithOAuth({ provider: 'google', redirectTo: 'https://sibling.example.test/', skipBrowserRedirect: true }).catch((e: unknown) => e);
    expect(error).toMatchObject({ name: 'GatehouseError', status: 400, detail: 'google sign-in is not configured for this application' });
  });

  it("53 client sdk: listOAuthProviders names the app's providers for its buttons; signInWithOAuth takes github and an oidc-<name>", async () => {
    const oauth = client({ publishableKey: sibling.publishable_key });
    expect(await oauth.auth.listOAuthProviders()).toEqual([]);
    const configured = [
      api(env.server, 'PUT', '/v1/oauth/providers/github', { bearer: sibling.secret_key, body: { client_id: 'Iv1.sdk', client_secret: 'gh-secret' } }),
      api(env.server, 'PUT', '/v1/oauth/providers/oidc-acme', { bearer: sibling.secret_key, body: { issuer: 'https://sso.acme.example.test', client_id: 'c', client_secret: 's', display_name: 'Acme SSO' } }),
    ];
    for (const res of await Promise.all(configured)) expect(res.status, JSON.stringify(res.body)).toBe(200);
    const listed = await oauth.auth.listOAuthProviders();
    expect(listed).toEqual([{ provider: 'github', display_name: 'GitHub' }, { provider: 'oidc-acme', display_name: 'Acme SSO' }]);
    // GitHub needs no discovery: authorize answers its URL (GITHUB_URL's default, https://github.com).
    const { url } = await oauth.auth.signInWithOAuth({ provider: listed[0].provider, redirectTo: 'https://sibling.example.test/', skipBrowserRedirect: true });
    expect(url).toMatch(/^https:\/\/github\.com\/login\/oauth\/authorize\?client_id=Iv1\.sdk&/);
    expect(new URL(url).searchParams.get('redirect_uri')).toBe(`${env.server.url}/v1/oauth/github/callback`);
    for (const name of ['github', 'oidc-acme']) await api(env.server, 'DELETE', `/v1/oauth/providers/${name}`, { bearer: sibling.secret_key });
  });
});

describe('39 @gatehouse/client: the session', () => {
  it('39 client sdk: refreshSession rotates the tokens; two refreshes at once send one request and the session lives on', async () => {
    const { gatehouse, session } = await signedIn();
    const [a, b] = await Promise.all([gatehouse.auth.refreshSession(), gatehouse.auth.refreshSession()]);
    expect(a).toEqual(b);
    expect(a!.refresh_token).not.toBe(session.refresh_token);
    expect(a!.session_id).toBe(session.session_id);
    // The first refresh token was spent once: presented now it is refused, yet the session lives.
    const reused = await api(env.server, 'POST', '/v1/tokens/session', { publishableKey: app.publishable_key, body: { refresh_token: session.refresh_token } });
    expect(reused.status).toBe(401);
    expect(await gatehouse.auth.getUser()).not.toBeNull();
    const again = await gatehouse.auth.refreshSession();
    expect(again!.refresh_token).not.toBe(a!.refresh_token);
  });

  it('39 client sdk: a call a minute before expiry refreshes first (TOKEN_REFRESHED), whatever the clocks say', async () => {
    let skew = 0;
    const gatehouse = client({ now: () => Date.now() + skew });
    const { session } = await signedIn(gatehouse);
    const events: AuthEvent[] = [];
    gatehouse.auth.onAuthStateChange((event) => events.push(event));
    skew = 14.5 * 60_000; // the access token (15 minutes) is now within the refresh margin
    expect(await gatehouse.auth.getUser()).not.toBeNull();
    const now = await gatehouse.auth.getSession();
    expect(now!.refresh_token).not.toBe(session.refresh_token);
    expect(now!.expires_at).toBeGreaterThan(Date.now() + skew + 14 * 60_000);
    expect(events).toEqual(['INITIAL_SESSION', 'TOKEN_REFRESHED']);
  });

  it('39 client sdk: onAuthStateChange hears INITIAL_SESSION, SIGNED_IN, USER_UPDATED, SIGNED_OUT; a stored session outlives its client', async () => {
    const storage = memoryStorage();
    const gatehouse = client({ storage });
    const seen: Array<[AuthEvent, string | undefined]> = [];
    const { unsubscribe } = gatehouse.auth.onAuthStateChange((event, session) => seen.push([event, session?.user_id]));
    const { email, password, session } = await signedIn(gatehouse);
    await gatehouse.auth.updatePassword({ currentPassword: password, password: 'a brand new password' });

    // Another client over the same storage (a reload, a new process) starts signed in.
    const later = client({ storage });
    const initial = await new Promise<Session | null>((resolve) => later.auth.onAuthStateChange((event, s) => event === 'INITIAL_SESSION' && resolve(s)));
    expect(initial?.session_id).toBe(session.session_id);

    await gatehouse.auth.signOut();
    unsubscribe();
    await gatehouse.auth.signInWithPassword({ email, password: 'a brand new password' }); // unheard: unsubscribed
    expect(seen).toEqual([
      ['INITIAL_SESSION', undefined],
      ['SIGNED_IN', session.user_id],
      ['USER_UPDATED', session.user_id],
      ['SIGNED_OUT', undefined],
    ]);
  });
});

describe('39 @gatehouse/client: tables and buckets', () => {
  let tableId: string;
  let bucketId: string;

  beforeAll(async () => {
    const table = await api(env.server, 'POST', '/v1/tables', {
      bearer: app.secret_key,
      body: { name: 'notes', columns: [{ name: 'title', type: 'text', required: true }, { name: 'done', type: 'bool', default_value: false }, { name: 'stars', type: 'int' }] },
    });
    expect(table.status).toBe(201);
    tableId = table.body.table_id;
    const bucket = await api(env.server, 'POST', '/v1/buckets', { bearer: app.secret_key, body: { name: 'avatars' } });
    expect(bucket.status).toBe(201);
    bucketId = bucket.body.bucket_id;
  });

  it('39 client sdk: a row round trip by table name (insert, get, update, query with cursors, delete), typed', async () => {
    const { gatehouse, session } = await signedIn();
    const notes = gatehouse.from<Note>('notes');
    const first = await notes.insert({ title: 'Buy flour' });
    expect(first).toMatchObject({ data: { title: 'Buy flour', done: false }, user_id: session.user_id });
    expect((await notes.get(first.row_id)).data.title).toBe('Buy flour');
    expect((await notes.update(first.row_id, { done: true, stars: 3 })).data).toEqual({ title: 'Buy flour', done: true, stars: 3 });
    for (const title of ['Bake bread', 'Bake a pie', 'Call Ada']) await notes.insert({ title });

    const page = await gatehouse.from<Note>(tableId).select().contains('title', 'bake').order('title', 'asc').limit(1);
    expect(page.rows.map((r) => r.data.title)).toEqual(['Bake a pie']);
    const next = await gatehouse.from<Note>(tableId).select().contains('title', 'bake').order('title', 'asc').limit(1).after(page.next_cursor);
    expect(next.rows.map((r) => r.data.title)).toEqual(['Bake bread']);
    const all: string[] = [];
    for await (const row of notes.select().eq('done', false).order('created_at', 'desc').limit(2)) all.push(row.data.title);
    expect(all).toEqual(['Call Ada', 'Bake a pie', 'Bake bread']);

    await notes.delete(first.row_id);
    await expect(notes.get(first.row_id)).rejects.toMatchObject({ status: 404 });
    // Another user sees none of these rows.
    const other = await signedIn();
    expect((await other.gatehouse.from<Note>('notes').select()).rows).toEqual([]);
  });

  it('39 client sdk: an upload reports progress as the body streams; download gives the same bytes', async () => {
    const { gatehouse, session } = await signedIn();
    const avatars = gatehouse.storage.from('avatars');
    const bytes = randomBytes(300 * 1024);
    const progress: number[] = [];
    const stored = await avatars.upload('me/avatar.png', bytes, { contentType: 'image/png', onProgress: ({ loaded, total }) => (expect(total).toBe(bytes.length), progress.push(loaded)) });
    expect(stored).toMatchObject({ key: 'me/avatar.png', size_bytes: bytes.length, content_type: 'image/png', user_id: session.user_id });
    expect(progress[0]).toBe(0);
    expect(progress.at(-1)).toBe(bytes.length);
    expect(progress.length).toBeGreaterThan(3);
    expect([...progress].sort((a, b) => a - b)).toEqual(progress);

    const blob = await gatehouse.storage.from(bucketId).download('me/avatar.png');
    expect(blob.type).toBe('image/png');
    expect(Buffer.from(await blob.arrayBuffer()).equals(bytes)).toBe(true);
    expect((await avatars.list({ prefix: 'me/' })).objects.map((o) => o.key)).toEqual(['me/avatar.png']);
    await avatars.remove('me/avatar.png');
    await expect(avatars.download('me/avatar.png')).rejects.toMatchObject({ status: 404 });
  });
});

describe('39 @gatehouse/client: typed errors', () => {
  it('39 client sdk: a refusal is a GatehouseError with status, code, detail and requestId; an unreachable server is status 0', async () => {
    const { email } = await signedIn();
    const error = await client()
      .auth.signInWithPassword({ email, password: 'not the password' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatehouseError);
    expect(error).toMatchObject({ status: 401, code: 'invalid_credentials', detail: expect.any(String), requestId: expect.any(String) });

    const { gatehouse } = await signedIn();
    await expect(gatehouse.from('no_such_table').insert({})).rejects.toMatchObject({ name: 'GatehouseError', status: 404 });
    await expect(gatehouse.auth.updatePassword({ currentPassword: 'wrong password', password: 'another new password' })).rejects.toMatchObject({
      status: 403,
      detail: 'current password is wrong',
    });
    const nowhere = createClient({ url: 'http://127.0.0.1:9', publishableKey: app.publishable_key });
    await expect(nowhere.auth.signInWithPassword({ email, password: 'x' })).rejects.toMatchObject({ status: 0, detail: expect.stringMatching(/could not reach Gatehouse/) });
  });
});

/** fetch with one cookie jar and a page's Origin, as a browser on an allow-listed page sends them. */
function browserLikeFetch(origin: string): typeof fetch {
  const jar = new Map<string, string>();
  return async (input, init = {}) => {
    const headers = new Headers(init.headers);
    headers.set('origin', origin);
    if (jar.size) headers.set('cookie', [...jar].map(([name, value]) => `${name}=${value}`).join('; '));
    const response = await fetch(input, { ...init, headers });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const value = pair!.slice(at + 1);
      if (/max-age=0|expires=thu, 01 jan 1970/i.test(line) || value === '') jar.delete(pair!.slice(0, at));
      else jar.set(pair!.slice(0, at), value);
    }
    return response;
  };
}

describe('48 @gatehouse/client: auth.getToken() for your own API', () => {
  it('48 getToken answers a fresh access token in memory and cookie storage; /v1/me accepts it as Bearer; null when signed out', async () => {
    const { gatehouse } = await signedIn();
    const bearer = await gatehouse.auth.getToken();
    expect(bearer).toMatch(/^ey/);
    const me = await api(env.server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: bearer! });
    expect(me.status).toBe(200);

    // Cookie mode: the session lives in the API's cookies; the token comes from a refresh by cookie.
    const page = 'https://sibling.example.test';
    const cookies = createClient({ url: env.server.url, publishableKey: sibling.publishable_key, storage: 'cookies', fetch: browserLikeFetch(page) });
    clients.push(cookies);
    const email = uniqueEmail('token');
    const made = await api(env.server, 'POST', '/v1/users', { bearer: sibling.secret_key, body: { email, password: 'correct horse battery' } });
    expect(made.status).toBe(201);
    const session = await cookies.auth.signInWithPassword({ email, password: 'correct horse battery' });
    expect(session).not.toHaveProperty('access_token');
    expect((await cookies.auth.getSession())?.access_token).toBeUndefined();
    const token = await cookies.auth.getToken();
    expect(token).toMatch(/^ey/);
    const mine = await api(env.server, 'GET', '/v1/me', { publishableKey: sibling.publishable_key, bearer: token! });
    expect(mine.status).toBe(200);
    expect(mine.body).toMatchObject({ email });
    await cookies.auth.signOut();
    expect(await cookies.auth.getToken()).toBeNull();
  });
});

describe('39 @gatehouse/client: the account', () => {
  it('39 client sdk: sessions listed and revoked, email changed by code, password reset by code, account deleted', async () => {
    const { gatehouse, email, password, session } = await signedIn();
    const elsewhere = client();
    await elsewhere.auth.signInWithPassword({ email, password });
    const sessions = await gatehouse.auth.listSessions();
    expect(sessions.map((s) => s.current).sort()).toEqual([false, true]);
    expect(sessions.find((s) => s.current)!.session_id).toBe(session.session_id);
    await gatehouse.auth.revokeSession(sessions.find((s) => !s.current)!.session_id);
    expect(await elsewhere.auth.getUser()).toBeNull();

    const newEmail = uniqueEmail('moved');
    await gatehouse.auth.updateEmail(newEmail);
    expect((await gatehouse.auth.confirmEmailChange({ code: await codeFor(env.sink, newEmail) })).email).toBe(newEmail);

    await client().auth.resetPasswordForEmail(newEmail);
    const reset = client();
    await reset.auth.confirmPasswordReset({ email: newEmail, code: await codeFor(env.sink, newEmail, 2), password: 'a reset password' });
    expect(await gatehouse.auth.getUser()).toBeNull(); // a reset signs every earlier session out

    await reset.auth.deleteAccount();
    expect(await reset.auth.getSession()).toBeNull();
    await expect(client().auth.signInWithPassword({ email: newEmail, password: 'a reset password' })).rejects.toMatchObject({ status: 401 });
  });
});

describe('40 @gatehouse/client: a second factor', () => {
  it('40 client sdk: an account with TOTP gets MfaRequiredError from signInWithPassword (nothing stored, the secret never listed); a wrong code is 400', async () => {
    const { email, password, session } = await signedIn();
    await enrollTotp(env.server, app, session.access_token!);
    const fresh = client({ storage: memoryStorage() });
    const refused = await fresh.auth.signInWithPassword({ email, password }).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MfaRequiredError);
    const challenge = refused as MfaRequiredError;
    expect(challenge.factors.map((f) => f.type)).toEqual(['totp']);
    expect(await fresh.auth.getSession()).toBeNull();
    const { secret } = (await api(env.server, 'GET', '/v1/me/factors', { publishableKey: app.publishable_key, bearer: session.access_token! })).body.factors[0] ?? {};
    expect(secret).toBeUndefined(); // the secret is shown once, at enrollment, never listed
    await expect(fresh.auth.verifyMfa({ mfaToken: challenge.mfaToken, code: '000000' })).rejects.toMatchObject({ status: 400 });
  });

  it('40 client sdk: verifyMfa with the next TOTP code stores the session; the access token says aal2 with otp', async () => {
    const { email, password, session } = await signedIn();
    const { secret } = await enrollTotp(env.server, app, session.access_token!);
    const fresh = client({ storage: memoryStorage() });
    const challenge = (await fresh.auth.signInWithPassword({ email, password }).catch((error: unknown) => error)) as MfaRequiredError;
    const done = await fresh.auth.verifyMfa({ mfaToken: challenge.mfaToken, code: codeAt(secret, 1) });
    expect(claimsOf(done.access_token!)).toMatchObject({ aal: 'aal2' });
    expect(claimsOf(done.access_token!).amr).toContain('otp');
    expect((await fresh.auth.getUser())?.email).toBe(email);
  });
});
