import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// Issue 49: a user's three metadata objects. public: the server writes, the user reads; private: the server
// only; unsafe: the user writes. Each a JSON object of at most 8 KiB; another app's key sees none of them.

let server: TestServer;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await startServer({ RATE_LIMITS: '' });
  app = await createApp(server, { name: 'Shop' });
  other = await createApp(server, { tenantId: app.tenant_id, name: 'Blog' });
});
afterAll(async () => {
  await server?.stop();
});

let counter = 0;
const uniqueEmail = () => `meta.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;
const secret = (method: string, path: string, body?: unknown, key = app.secret_key) => api(server, method, path, { bearer: key, body });

/** A user of the app and a session of theirs (a sign-in token). */
async function userWithSession() {
  const created = await secret('POST', '/v1/users', { email: uniqueEmail() });
  expect(created.status).toBe(201);
  const signIn = await secret('POST', '/v1/sign_in_tokens', { user_id: created.body.id });
  expect(signIn.status).toBe(200);
  return { id: created.body.id as string, token: signIn.body.token as string };
}

const me = (token: string) => api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });
const patchMe = (token: string, body: unknown) => api(server, 'PATCH', '/v1/me', { publishableKey: app.publishable_key, bearer: token, body });

describe('metadata', () => {
  it('a new user has three empty objects, in the user object and (not the private one) in /v1/me', async () => {
    const user = await userWithSession();
    const shown = await secret('GET', `/v1/users/${user.id}`);
    expect(shown.body).toMatchObject({ public_metadata: {}, private_metadata: {}, unsafe_metadata: {}, banned: false });
    const mine = await me(user.token);
    expect(mine.body).toEqual({ user_id: user.id, email: shown.body.email, email_verified: false, is_bot: false, public_metadata: {}, unsafe_metadata: {}, locale: null, organization: null });
  });

  it('the server writes all three; /v1/me shows public and unsafe, never private', async () => {
    const user = await userWithSession();
    const body = {
      public_metadata: { role: 'admin', plan: { tier: 2, seats: [1, 2] } },
      private_metadata: { stripe_customer: 'cus_123', notes: 'vip' },
      unsafe_metadata: { theme: 'dark' },
    };
    const updated = await secret('PATCH', `/v1/users/${user.id}`, body);
    expect(updated.status, JSON.stringify(updated.body)).toBe(200);
    expect(updated.body).toMatchObject(body);
    expect((await secret('GET', `/v1/users/${user.id}`)).body).toMatchObject(body);
    const listed = await secret('GET', `/v1/users?email=${encodeURIComponent(updated.body.email)}`);
    expect(listed.body.users[0]).toMatchObject(body);
    const mine = await me(user.token);
    expect(mine.status).toBe(200);
    expect(mine.body.public_metadata).toEqual(body.public_metadata);
    expect(mine.body.unsafe_metadata).toEqual(body.unsafe_metadata);
    expect(mine.body).not.toHaveProperty('private_metadata');
    expect(JSON.stringify(mine.body)).not.toContain('cus_123');
  });

  it('a write replaces the object whole; fields not sent are kept', async () => {
    const user = await userWithSession();
    await secret('PATCH', `/v1/users/${user.id}`, { public_metadata: { a: 1, b: 2 }, private_metadata: { p: 1 } });
    const updated = await secret('PATCH', `/v1/users/${user.id}`, { public_metadata: { c: 3 } });
    expect(updated.body).toMatchObject({ public_metadata: { c: 3 }, private_metadata: { p: 1 } });
  });

  it('the user writes unsafe_metadata through PATCH /v1/me; public and private or any other field are 400 and change nothing', async () => {
    const user = await userWithSession();
    await secret('PATCH', `/v1/users/${user.id}`, { public_metadata: { role: 'member' }, private_metadata: { score: 1 } });
    const written = await patchMe(user.token, { unsafe_metadata: { onboarding: { step: 3 } } });
    expect(written.status, JSON.stringify(written.body)).toBe(200);
    expect(written.body).toMatchObject({ user_id: user.id, public_metadata: { role: 'member' }, unsafe_metadata: { onboarding: { step: 3 } } });
    expect(written.body).not.toHaveProperty('private_metadata');
    for (const body of [
      { public_metadata: { role: 'admin' } },
      { private_metadata: { score: 1000 } },
      { unsafe_metadata: { x: 1 }, public_metadata: { role: 'admin' } },
      { email: 'someone.else@example.com' },
      { banned: false },
    ]) {
      const refused = await patchMe(user.token, body);
      expect(refused.status, JSON.stringify(body)).toBe(400);
      expect(refused.body.detail).toMatch(/unknown field|unsafe_metadata/);
    }
    const after = await secret('GET', `/v1/users/${user.id}`);
    expect(after.body).toMatchObject({ public_metadata: { role: 'member' }, private_metadata: { score: 1 }, unsafe_metadata: { onboarding: { step: 3 } } });
    expect(after.body.email).not.toBe('someone.else@example.com');
  });

  it('PATCH /v1/me needs a session: a publishable key alone or another app’s key is 401', async () => {
    const user = await userWithSession();
    expect((await api(server, 'PATCH', '/v1/me', { publishableKey: app.publishable_key, body: { unsafe_metadata: {} } })).status).toBe(401);
    expect((await api(server, 'PATCH', '/v1/me', { publishableKey: other.publishable_key, bearer: user.token, body: { unsafe_metadata: {} } })).status).toBe(401);
  });

  it('a metadata value that is not an object is 400', async () => {
    const user = await userWithSession();
    for (const value of [[1, 2], 'text', 3, null]) {
      expect((await secret('PATCH', `/v1/users/${user.id}`, { public_metadata: value })).status).toBe(400);
      expect((await patchMe(user.token, { unsafe_metadata: value })).status).toBe(400);
    }
  });

  it('8 KiB of JSON is kept; one byte more is 400 metadata_too_large and nothing changes', async () => {
    const user = await userWithSession();
    // {"k":"…"} is 8 bytes around the value.
    const exactly = { k: 'x'.repeat(8192 - 8) };
    expect(JSON.stringify(exactly).length).toBe(8192);
    for (const kind of ['public_metadata', 'private_metadata', 'unsafe_metadata']) {
      const kept = await secret('PATCH', `/v1/users/${user.id}`, { [kind]: exactly });
      expect(kept.status, kind).toBe(200);
      const over = await secret('PATCH', `/v1/users/${user.id}`, { [kind]: { k: 'x'.repeat(8192 - 7) }, email_verified: true });
      expect(over.status, kind).toBe(400);
      expect(over.body).toMatchObject({ code: 'metadata_too_large', detail: `${kind} is 8193 bytes as JSON; at most 8192 are kept` });
    }
    const after = await secret('GET', `/v1/users/${user.id}`);
    expect(after.body).toMatchObject({ public_metadata: exactly, private_metadata: exactly, unsafe_metadata: exactly, email_verified: false });
    // Multi-byte characters count as their UTF-8 bytes.
    const wide = await patchMe(user.token, { unsafe_metadata: { k: 'é'.repeat(4100) } });
    expect(wide.status).toBe(400);
    expect(wide.body).toMatchObject({ code: 'metadata_too_large', detail: expect.stringMatching(/^unsafe_metadata is 8208 bytes as JSON/) });
    expect((await patchMe(user.token, { unsafe_metadata: { k: 'é'.repeat(4000) } })).status).toBe(200);
  });

  it("another app's secret key cannot read or write the user: 404, nothing changes", async () => {
    const user = await userWithSession();
    await secret('PATCH', `/v1/users/${user.id}`, { private_metadata: { secret: 'mine' } });
    expect((await secret('GET', `/v1/users/${user.id}`, undefined, other.secret_key)).status).toBe(404);
    const foreign = await secret('PATCH', `/v1/users/${user.id}`, { private_metadata: { secret: 'theirs' } }, other.secret_key);
    expect(foreign.status).toBe(404);
    expect((await secret('GET', `/v1/users/${user.id}/export`, undefined, other.secret_key)).status).toBe(404);
    const listed = await secret('GET', '/v1/users?limit=200', undefined, other.secret_key);
    expect(JSON.stringify(listed.body)).not.toContain('mine');
    expect((await secret('GET', `/v1/users/${user.id}`)).body.private_metadata).toEqual({ secret: 'mine' });
    // A publishable key is not a server's: 401.
    expect((await api(server, 'PATCH', `/v1/users/${user.id}`, { publishableKey: app.publishable_key, body: { banned: true } })).status).toBe(401);
  });

  it("the user's export holds all three; deleting the user removes them with the row", async () => {
    const user = await userWithSession();
    const body = { public_metadata: { p: 1 }, private_metadata: { q: 2 }, unsafe_metadata: { r: 3 } };
    await secret('PATCH', `/v1/users/${user.id}`, body);
    const exported = await secret('GET', `/v1/users/${user.id}/export`);
    expect(exported.status).toBe(200);
    expect(exported.body.user).toMatchObject({ id: user.id, ...body, banned: false });
    expect((await secret('DELETE', `/v1/users/${user.id}`)).status).toBe(200);
    expect((await secret('GET', `/v1/users/${user.id}`)).status).toBe(404);
    expect((await secret('GET', `/v1/users/${user.id}/export`)).status).toBe(404);
  });
});

describe('PATCH /v1/users/{id}: email', () => {
  it('a new email is unverified unless email_verified is sent; 409 email_taken when another user of the app has it', async () => {
    const a = await userWithSession();
    const b = await userWithSession();
    const newEmail = uniqueEmail();
    const moved = await secret('PATCH', `/v1/users/${a.id}`, { email: newEmail });
    expect(moved.body).toMatchObject({ email: newEmail, email_verified: false });
    const verified = await secret('PATCH', `/v1/users/${a.id}`, { email_verified: true });
    expect(verified.body).toMatchObject({ email: newEmail, email_verified: true });
    const taken = await secret('PATCH', `/v1/users/${b.id}`, { email: newEmail.toUpperCase(), public_metadata: { x: 1 } });
    expect(taken.status).toBe(409);
    expect(taken.body).toMatchObject({ code: 'email_taken', detail: 'another user of this application has this email' });
    // The transaction is undone: the metadata sent with it is not kept.
    expect((await secret('GET', `/v1/users/${b.id}`)).body.public_metadata).toEqual({});
    // Another app may hold the same address.
    const elsewhere = await secret('POST', '/v1/users', { email: newEmail }, other.secret_key);
    expect(elsewhere.status).toBe(201);
  });

  it('an empty body, an unknown field or a bad id is 400; an unknown user is 404', async () => {
    const a = await userWithSession();
    expect((await secret('PATCH', `/v1/users/${a.id}`, {})).status).toBe(400);
    const unknown = await secret('PATCH', `/v1/users/${a.id}`, { role: 'admin' });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ code: 'unknown_field', detail: expect.stringMatching(/unknown field "role"/) });
    expect((await secret('PATCH', `/v1/users/not-a-uuid`, { banned: true })).status).toBe(400);
    expect((await secret('PATCH', `/v1/users/00000000-0000-4000-8000-000000000000`, { banned: true })).status).toBe(404);
  });
});
