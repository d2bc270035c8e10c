import { argon2id } from 'hash-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Encode } from '../../src/crypto/totp.js';
import { queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { codeAt, verifyMfa } from '../helpers/mfa.js';
import { sharedServer, type TestServer } from '../helpers/server.js';

// docs/import.md: POST /v1/users/import, each user its own write (a bad one never stops the others), results in
// order, `skip` makes a repeated run change nothing, external_id found by GET /v1/users?external_id=, identities
// and TOTP secrets only for a verified address, the kept total exact under concurrent calls, and another app's
// key sees none of it.

let server: TestServer;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await sharedServer();
  app = await createApp(server, { name: 'Moving in' });
  other = await createApp(server, { tenantId: app.tenant_id, name: 'Elsewhere' });
});
afterAll(async () => {
  await server?.stop();
});

let counter = 0;
const uniqueEmail = () => `imp.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;
const importUsers = (body: unknown, key = app.secret_key) => api(server, 'POST', '/v1/users/import', { bearer: key, body });
const listUsers = (query: string, key = app.secret_key) => api(server, 'GET', `/v1/users?${query}`, { bearer: key });
const signIn = (email: string, password: string, target = app) => api(server, 'POST', '/v1/signins', { publishableKey: target.publishable_key, body: { email, password } });
const PASSWORD = 'correct horse battery';
const argonHash = async () => argon2id({ password: PASSWORD, salt: 'saltsaltsalt', parallelism: 1, iterations: 2, memorySize: 1024, hashLength: 32, outputType: 'encoded' });

describe('19 POST /v1/users/import', () => {
  it('a mixed batch: the good items are created, each bad one fails alone, results in order', async () => {
    const taken = uniqueEmail();
    expect((await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: taken } })).status).toBe(201);
    const good = [uniqueEmail(), uniqueEmail(), uniqueEmail()];
    const res = await importUsers({
      users: [
        { email: good[0], password_hash: { algorithm: 'argon2id', hash: await argonHash() } },
        { email: 'not an email' },
        { email: taken },
        { email: good[1], email_verified: true, external_id: `ext-${good[1]}`, created_at: '2019-05-04T03:02:01.000Z' },
        { email: uniqueEmail(), totp_secret: base32Encode(Buffer.alloc(20, 7)) },
        { email: uniqueEmail(), email_verified: true, totp_secret: 'not base32!' },
        { email: uniqueEmail(), password: PASSWORD, password_hash: { algorithm: 'md5', hash: 'a'.repeat(32) } },
        { email: good[0].toUpperCase() },
        { email: uniqueEmail(), identities: [{ provider: 'google', subject: 'g-1' }] },
        { email: uniqueEmail(), email_verified: true, identities: [{ provider: 'myspace', subject: 'x' }] },
        { email: uniqueEmail(), created_at: '2999-01-01T00:00:00Z' },
        { email: good[2] },
      ],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const statuses = res.body.results.map((r: { status: string; code: string | null }) => `${r.status}:${r.code ?? ''}`);
    expect(statuses).toEqual([
      'created:',
      'error:validation_failed',
      'error:user_exists',
      'created:',
      'error:email_not_verified',
      'error:invalid_totp_secret',
      'error:validation_failed',
      'error:user_exists',
      'error:email_not_verified',
      'error:validation_failed',
      'error:validation_failed',
      'created:',
    ]);
    expect(res.body.results.map((r: { index: number }) => r.index)).toEqual([...Array(12).keys()]);
    expect(res.body).toMatchObject({ created: 3, skipped: 0, failed: 9 });
    for (const result of res.body.results) expect(result.status === 'created' ? typeof result.user_id : result.user_id).toBe(result.status === 'created' ? 'string' : null);
    const shown = await api(server, 'GET', `/v1/users/${res.body.results[3].user_id}`, { bearer: app.secret_key });
    expect(shown.body).toMatchObject({ email: good[1], email_verified: true, external_id: `ext-${good[1]}`, created_at: '2019-05-04T03:02:01.000Z' });
    expect((await signIn(good[0], PASSWORD)).status).toBe(200);
    // Events: one users.imported for the call, with its counts; a user.created (source import) per user made.
    const imported = await api(server, 'GET', '/v1/events?type=users.imported&limit=1', { bearer: app.secret_key });
    expect(imported.body.events[0]).toMatchObject({ type: 'users.imported', app_id: app.app_id, user_id: null, actor: { type: 'secret_key' }, data: { created: 3, skipped: 0, failed: 9 } });
    for (const index of [0, 3, 11]) {
      const userId = res.body.results[index].user_id;
      const created = await api(server, 'GET', `/v1/events?type=user.created&user_id=${userId}`, { bearer: app.secret_key });
      expect(created.body.events.map((e: { data: { source: string } }) => e.data.source)).toEqual(['import']);
    }
    expect((await api(server, 'GET', '/v1/events?type=users.imported', { bearer: other.secret_key })).body.events).toEqual([]);
  });

  it("an item's locale is the user's (canonical); one that is not BCP 47 fails that item alone", async () => {
    const [fr, none] = [uniqueEmail(), uniqueEmail()];
    const res = await importUsers({ users: [{ email: fr, locale: 'fr-ca' }, { email: uniqueEmail(), locale: 'not a language' }, { email: none }] });
    expect(res.body.results.map((r: { status: string; code: string | null }) => `${r.status}:${r.code ?? ''}`)).toEqual(['created:', 'error:invalid_locale', 'created:']);
    expect((await api(server, 'GET', `/v1/users/${res.body.results[0].user_id}`, { bearer: app.secret_key })).body.locale).toBe('fr-CA');
    expect((await api(server, 'GET', `/v1/users/${res.body.results[2].user_id}`, { bearer: app.secret_key })).body.locale).toBeNull();
  });

  it('on_conflict skip: a second run of the same file imports nothing and changes nothing', async () => {
    const users = [0, 1, 2, 3].map((i) => ({ email: uniqueEmail(), external_id: `skip-${Date.now()}-${i}`, password_hash: { algorithm: 'md5', hash: 'b'.repeat(32) } }));
    const first = await importUsers({ users, on_conflict: 'skip' });
    expect(first.body).toMatchObject({ created: 4, skipped: 0, failed: 0 });
    const total = (await listUsers('limit=1')).body.total;
    const rows = await queryDatabase(server.databaseUrl, `select id, updated_at, password_hash from users where app_id = '${app.app_id}' order by id`);
    const second = await importUsers({ users, on_conflict: 'skip' });
    expect(second.body).toMatchObject({ created: 0, skipped: 4, failed: 0 });
    expect(second.body.results.map((r: { user_id: string }) => r.user_id)).toEqual(first.body.results.map((r: { user_id: string }) => r.user_id));
    expect((await listUsers('limit=1')).body.total).toBe(total);
    expect(await queryDatabase(server.databaseUrl, `select id, updated_at, password_hash from users where app_id = '${app.app_id}' order by id`)).toEqual(rows);
    // The same external_id under another email is the same user: skipped too; with error, external_id_taken.
    const moved = { ...users[0]!, email: uniqueEmail() };
    expect((await importUsers({ users: [moved], on_conflict: 'skip' })).body.results[0]).toMatchObject({ status: 'skipped', user_id: first.body.results[0].user_id });
    expect((await importUsers({ users: [moved] })).body.results[0]).toMatchObject({ status: 'error', code: 'external_id_taken' });
    expect((await importUsers({ users: [users[1]] })).body.results[0]).toMatchObject({ status: 'error', code: 'user_exists' });
    // Twice in one call: the second is a repeat of the first.
    const twice = uniqueEmail();
    const doubled = await importUsers({ users: [{ email: twice }, { email: twice }], on_conflict: 'skip' });
    expect(doubled.body).toMatchObject({ created: 1, skipped: 1, failed: 0 });
  });

  it('GET /v1/users?external_id= finds the imported user; another app finds nothing', async () => {
    const email = uniqueEmail();
    const externalId = `auth0|${Date.now()}`;
    const created = await importUsers({ users: [{ email, external_id: externalId }] });
    const found = await listUsers(`external_id=${encodeURIComponent(externalId)}`);
    expect(found.status).toBe(200);
    expect(found.body).toMatchObject({ total: 1, next_cursor: null });
    expect(found.body.users.map((u: { id: string; external_id: string }) => [u.id, u.external_id])).toEqual([[created.body.results[0].user_id, externalId]]);
    expect((await listUsers(`external_id=${encodeURIComponent(externalId)}&email=${encodeURIComponent(email)}`)).body.total).toBe(1);
    expect((await listUsers(`external_id=${encodeURIComponent(externalId)}&email=someone.else%40example.com`)).body.total).toBe(0);
    expect((await listUsers('external_id=nobody')).body).toMatchObject({ users: [], total: 0 });
    expect((await listUsers(`external_id=${encodeURIComponent(externalId)}`, other.secret_key)).body).toMatchObject({ users: [], total: 0 });
    // A user made here has no external_id.
    const made = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email: uniqueEmail() } });
    expect(made.body.external_id).toBeNull();
  });

  it('a TOTP secret becomes a verified factor: the password asks for the code, the code opens the session', async () => {
    const email = uniqueEmail();
    const secret = base32Encode(Buffer.from('12345678901234567890'));
    const res = await importUsers({ users: [{ email, email_verified: true, password: PASSWORD, totp_secret: secret.toLowerCase().replace(/(.{4})/g, '$1 ') }] });
    expect(res.body.created, JSON.stringify(res.body)).toBe(1);
    const userId = res.body.results[0].user_id;
    const [factor] = await queryDatabase(server.databaseUrl, `select type, status, secret_sealed from mfa_factors where user_id = '${userId}'`);
    expect(factor).toMatchObject({ type: 'totp', status: 'verified' });
    expect(String(factor!.secret_sealed)).not.toContain(secret);
    const first = await signIn(email, PASSWORD);
    expect(first.body.mfa_required).toBe(true);
    const done = await verifyMfa(server, app, { mfa_token: first.body.mfa_token, code: codeAt(secret) });
    expect(done.status, JSON.stringify(done.body)).toBe(200);
    expect(done.body.user_id).toBe(userId);
  });

  it('identities link the provider subject to the user (its export shows them); a subject linked already fails that item', async () => {
    const email = uniqueEmail();
    const subject = `sub-${Date.now()}`;
    const res = await importUsers({ users: [{ email, email_verified: true, identities: [{ provider: 'google', subject, email }, { provider: 'oidc-okta', subject: 'okta-1' }] }] });
    expect(res.body.created, JSON.stringify(res.body)).toBe(1);
    const exported = await api(server, 'GET', `/v1/users/${res.body.results[0].user_id}/export`, { bearer: app.secret_key });
    expect(exported.body.identities.map((i: { provider: string; subject: string }) => `${i.provider}:${i.subject}`).sort()).toEqual([`google:${subject}`, 'oidc-okta:okta-1']);
    const again = await importUsers({ users: [{ email: uniqueEmail(), email_verified: true, identities: [{ provider: 'google', subject }] }] });
    expect(again.body.results?.[0], JSON.stringify(again.body)).toMatchObject({ status: 'error', code: 'identity_taken' });
    expect((await listUsers(`email=${encodeURIComponent(email)}`)).body.total).toBe(1);
  });

  it('the whole call is refused (400) for no users, more than 1,000, an unknown field or a bad on_conflict; nothing is made', async () => {
    const email = uniqueEmail();
    expect((await importUsers({ users: [] })).status).toBe(400);
    expect((await importUsers({ users: Array.from({ length: 1001 }, (_, i) => ({ email: `${i}.${email}` })) })).status).toBe(400);
    expect((await importUsers({ users: [{ email, nickname: 'x' }] })).body.code).toBe('unknown_field');
    expect((await importUsers({ users: [{ email }], on_conflict: 'overwrite' })).status).toBe(400);
    expect((await listUsers(`email=${encodeURIComponent(email)}`)).body.total).toBe(0);
  });

  it('isolation: a session, no key or another app’s key cannot import into the app; its users sign in to it alone', async () => {
    const email = uniqueEmail();
    expect((await api(server, 'POST', '/v1/users/import', { body: { users: [{ email }] } })).status).toBe(401);
    expect((await api(server, 'POST', '/v1/users/import', { publishableKey: app.publishable_key, body: { users: [{ email }] } })).status).toBe(401);
    const elsewhere = await importUsers({ users: [{ email, password: PASSWORD }] }, other.secret_key);
    expect(elsewhere.body.created).toBe(1);
    expect((await listUsers(`email=${encodeURIComponent(email)}`)).body.total).toBe(0);
    expect((await signIn(email, PASSWORD)).status).toBe(401);
    expect((await signIn(email, PASSWORD, other)).status).toBe(200);
    // The same email in this app is another user.
    expect((await importUsers({ users: [{ email }] })).body.created).toBe(1);
  });

  it('concurrent calls naming the same users create each once, and the kept total counts exactly what is there', async () => {
    const fresh = await createApp(server, { tenantId: app.tenant_id, name: 'Race' });
    const users = Array.from({ length: 40 }, () => ({ email: uniqueEmail() }));
    const calls = await Promise.all([0, 1, 2, 3].map((i) => importUsers({ users: i % 2 ? [...users].reverse() : users, on_conflict: i < 2 ? 'skip' : 'error' }, fresh.secret_key)));
    for (const call of calls) expect(call.status).toBe(200);
    expect(calls.reduce((sum, call) => sum + call.body.created, 0)).toBe(40);
    const [{ n }] = (await queryDatabase(server.databaseUrl, `select count(*) as n from users where app_id = '${fresh.app_id}'`)) as [{ n: number | string }];
    expect(Number(n)).toBe(40);
    expect((await listUsers('limit=1', fresh.secret_key)).body.total).toBe(40);
  });
});
