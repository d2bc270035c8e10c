import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signUp, uniqueEmail } from '../helpers/accounts.js';
import { execDatabase, queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { createBucket, putObject, random } from '../helpers/objects.js';
import { enrollTotp } from '../helpers/mfa.js';
import { sharedServer, type TestServer } from '../helpers/server.js';
import { asSecret, insertRow, makeTable } from '../helpers/tables.js';

// docs/privacy.md: GET /v1/users/{id}/export and `gatehouse user export`: exactly the user's data,
// streamed, and no secret.

const hex = (id: string) => id.replace(/-/g, '');

describe('14 exporting a user', () => {
  let server: TestServer;
  let app: TestApp;
  let other: TestApp;
  const people: Record<string, { email: string; userId: string; token: string; sessionId: string; refreshToken: string }> = {};
  let table: { table_id: string; name: string; columns: { column_id: string; name: string }[] };
  let bare: { table_id: string };
  let big: { table_id: string; name: string; columns: { column_id: string; name: string }[] };
  let bucket: { bucket_id: string; name: string };
  const identity = randomUUID();
  let totp: Awaited<ReturnType<typeof enrollTotp>>;

  async function person(name: string) {
    const email = uniqueEmail(name);
    const signup = await signUp(server, app, { email, password: 'correct horse battery' });
    expect(signup.status).toBe(200);
    const minted = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: signup.body.user_id } });
    people[name] = { email, userId: signup.body.user_id, token: minted.body.token, sessionId: minted.body.session_id, refreshToken: minted.body.refresh_token };
  }

  beforeAll(async () => {
    server = await sharedServer();
    app = await createApp(server);
    other = await createApp(server);
    await person('alice');
    await person('bob');
    const { alice, bob } = people;
    const now = new Date().toISOString();
    await execDatabase(
      server.databaseUrl,
      `insert into oauth_identities (app_id, provider, subject, user_id, email, name, created_at, updated_at) values ('${app.app_id}', 'google', '${identity}', '${alice.userId}', 'alice@gmail.example', 'Alice', '${now}', '${now}')`,
    );
    // A second session, revoked: it is listed with its revoked_at.
    const second = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: alice.userId } });
    expect((await api(server, 'POST', `/v1/sessions/revoke?session_id=${second.body.session_id}`, { bearer: app.secret_key })).status).toBe(200);
    table = await makeTable(server, asSecret(app), [{ name: 'title', type: 'text' }, { name: 'meta', type: 'json' }, { name: 'done', type: 'bool' }]);
    bare = await makeTable(server, asSecret(app), [{ name: 'x', type: 'int' }]);
    big = await makeTable(server, asSecret(app), [{ name: 'n', type: 'int' }]);
    await insertRow(server, { bearer: alice.token, publishableKey: app.publishable_key }, table.table_id, { title: 'mine', meta: { a: [1] }, done: true });
    await insertRow(server, asSecret(app), table.table_id, { title: 'for alice' }, { user_id: alice.userId });
    await insertRow(server, asSecret(app), table.table_id, { title: 'bob’s' }, { user_id: bob.userId });
    await insertRow(server, asSecret(app), table.table_id, { title: 'nobody’s' });
    await insertRow(server, asSecret(app), bare.table_id, { x: 1 }, { user_id: bob.userId });
    // 1,201 rows of alice straight into the data table: more than two pages of the export.
    const n = big.columns[0]!.column_id;
    for (let start = 0; start < 1201; start += 300) {
      const values = Array.from({ length: Math.min(300, 1201 - start) }, (_, i) => {
        const k = start + i;
        return `('${randomUUID()}', '${alice.userId}', '${now}', '${now}', 10, ${k})`;
      });
      await execDatabase(server.databaseUrl, `insert into t_${hex(big.table_id)} (row_id, user_id, created_at, updated_at, size_bytes, c_${hex(n)}) values ${values.join(', ')}`);
    }
    bucket = await createBucket(server, app);
    const other2 = await createBucket(server, app);
    expect((await putObject(server, app, bucket.bucket_id, 'photos/a.jpg', random(120), { contentType: 'image/jpeg', query: `?user_id=${alice.userId}` })).status).toBe(200);
    expect((await putObject(server, app, other2.bucket_id, 'notes.txt', random(7), { contentType: 'text/plain', query: `?user_id=${alice.userId}` })).status).toBe(200);
    expect((await putObject(server, app, bucket.bucket_id, 'photos/a.jpg', random(5), { query: `?user_id=${bob.userId}` })).status).toBe(200);
    expect((await putObject(server, app, bucket.bucket_id, 'shared.txt', random(5))).status).toBe(200);
    // A second factor of hers: listed by what it is, never by its secret or her recovery codes. Enrolling
    // needs a verified address (docs/mfa.md): hers is marked so, as her sign-up's code would.
    await execDatabase(server.databaseUrl, `update users set email_verified = 1, requires_verification = 0 where id = '${alice.userId}'`);
    totp = await enrollTotp(server, app, alice.token);
  });
  afterAll(async () => server?.stop());

  const exportOf = (userId: string, bearer = app.secret_key) => api(server, 'GET', `/v1/users/${userId}/export`, { bearer });

  it('14 export: exactly the user’s record, identities, sessions, rows and objects', async () => {
    const { alice } = people;
    const res = await exportOf(alice.userId);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const doc = res.body;
    expect(Object.keys(doc)).toEqual(['user', 'identities', 'sessions', 'tables', 'objects', 'factors', 'organizations', 'events']);
    const user = await api(server, 'GET', `/v1/users/${alice.userId}`, { bearer: app.secret_key });
    expect(doc.user).toEqual(user.body);
    expect(doc.identities).toEqual([{ provider: 'google', subject: identity, email: 'alice@gmail.example' }]);
    expect(doc.sessions).toHaveLength(2);
    const sessions = new Map(doc.sessions.map((s: { session_id: string }) => [s.session_id, s]));
    expect(Object.keys(sessions.get(alice.sessionId) as object)).toEqual(['session_id', 'created_at', 'last_used_at', 'revoked_at']);
    expect((sessions.get(alice.sessionId) as { revoked_at: string | null }).revoked_at).toBeNull();
    expect(doc.sessions.filter((s: { revoked_at: string | null }) => s.revoked_at !== null)).toHaveLength(1);

    // Tables holding a row of hers only, each with exactly her rows as the rows API shows them.
    expect(doc.tables.map((t: { table_id: string }) => t.table_id).sort()).toEqual([table.table_id, big.table_id].sort());
    const small = doc.tables.find((t: { table_id: string }) => t.table_id === table.table_id);
    expect(small.name).toBe(table.name);
    expect(small.rows.map((r: { data: { title: string } }) => r.data.title).sort()).toEqual(['for alice', 'mine']);
    const mine = small.rows.find((r: { data: { title: string } }) => r.data.title === 'mine');
    const viaApi = await api(server, 'GET', `/v1/tables/${table.table_id}/rows/${mine.row_id}`, { bearer: app.secret_key });
    expect(mine).toEqual(viaApi.body);
    const bigRows = doc.tables.find((t: { table_id: string }) => t.table_id === big.table_id).rows as { row_id: string; data: { n: number }; user_id: string }[];
    expect(bigRows).toHaveLength(1201);
    expect(new Set(bigRows.map((r) => r.data.n)).size).toBe(1201);
    expect(bigRows.every((r) => r.user_id === alice.userId)).toBe(true);
    expect(bigRows.map((r) => r.row_id)).toEqual(bigRows.map((r) => r.row_id).sort());

    expect(doc.objects).toHaveLength(2);
    const photo = doc.objects.find((o: { key: string }) => o.key === 'photos/a.jpg');
    expect(photo).toEqual({ bucket_id: bucket.bucket_id, bucket_name: bucket.name, key: 'photos/a.jpg', size_bytes: 120, content_type: 'image/jpeg', created_at: photo.created_at });
    expect(doc.objects.map((o: { key: string }) => o.key).sort()).toEqual(['notes.txt', 'photos/a.jpg']);

    // Her factors as GET /v1/users/{id}/factors lists them.
    const listed = await api(server, 'GET', `/v1/users/${alice.userId}/factors`, { bearer: app.secret_key });
    expect(doc.factors).toEqual(listed.body.factors);
    expect(doc.factors.map((f: { factor_id: string; type: string; status: string }) => [f.factor_id, f.type, f.status])).toEqual([[totp.factorId, 'totp', 'verified']]);
    expect((await exportOf(people.bob!.userId)).body.factors).toEqual([]);
  });

  it('14 export: no password hash, token hash, code or secret, and nothing of another user', async () => {
    const { alice, bob } = people;
    const res = await exportOf(alice.userId);
    const text = JSON.stringify(res.body);
    const [secrets] = await queryDatabase(server.databaseUrl, `select password_hash from users where id = '${alice.userId}'`);
    // A user with a second factor has the hash behind the prefix that makes release 02c1d09 refuse it (docs/upgrading.md).
    expect(String(secrets!.password_hash)).toMatch(/^(\$gatehouse-2fa\$)?\$argon2/);
    const forbidden = [String(secrets!.password_hash), '$argon2', alice.token, alice.refreshToken, app.secret_key, bob.userId, bob.email, 'nobody'];
    for (const row of await queryDatabase(server.databaseUrl, `select refresh_hash from sessions where user_id = '${alice.userId}' and refresh_hash is not null`)) forbidden.push(String(row.refresh_hash));
    for (const row of await queryDatabase(server.databaseUrl, `select code_hash from email_challenges where user_id = '${alice.userId}' and code_hash is not null`)) forbidden.push(String(row.code_hash));
    forbidden.push(totp.secret, ...totp.recoveryCodes, totp.accessToken);
    for (const row of await queryDatabase(server.databaseUrl, `select secret_sealed from mfa_factors where user_id = '${alice.userId}'`)) forbidden.push(String(row.secret_sealed));
    expect(forbidden.length).toBeGreaterThan(20);
    for (const secret of forbidden) expect(text.includes(secret), `export holds ${secret.slice(0, 12)}…`).toBe(false);
    // Bob's own export holds his row and object, none of hers.
    const bobs = (await exportOf(bob.userId)).body;
    expect(bobs.tables.map((t: { table_id: string; rows: unknown[] }) => [t.table_id, t.rows.length]).sort()).toEqual([[table.table_id, 1], [bare.table_id, 1]].sort());
    expect(bobs.objects.map((o: { key: string; size_bytes: number }) => [o.key, o.size_bytes])).toEqual([['photos/a.jpg', 5]]);
    expect(JSON.stringify(bobs).includes(alice.userId)).toBe(false);
  });

  it('14 export: app isolation; 404 unknown; 401 without the secret key; 403 for a session', async () => {
    const { alice } = people;
    expect((await exportOf(alice.userId, other.secret_key)).status).toBe(404);
    expect((await exportOf(randomUUID())).status).toBe(404);
    expect((await api(server, 'GET', `/v1/users/${alice.userId}/export`, {})).status).toBe(401);
    expect((await api(server, 'GET', `/v1/users/${alice.userId}/export`, { bearer: 'sk_not_a_key_at_all_000000000000000000000000' })).status).toBe(401);
    expect((await api(server, 'GET', `/v1/users/${alice.userId}/export`, { publishableKey: app.publishable_key, bearer: alice.token })).status).toBe(403);
    expect((await api(server, 'GET', `/v1/users/not-a-uuid/export`, { bearer: app.secret_key })).status).toBe(400);
  });

  // The CLI: each command is a process of its own (seconds each on a busy machine).
  it('14 gatehouse user export APP USER prints the same document; another app’s user exits 1', { timeout: 180_000 }, async () => {
    const { alice } = people;
    const cli = await server.cli(['user', 'export', app.app_id, alice.userId]);
    expect(cli.code, cli.stderr).toBe(0);
    // Each export writes its user.exported (the CLI's by the operator): the rest is the same document.
    const [fromCli, fromApi] = [JSON.parse(cli.stdout), (await exportOf(alice.userId)).body];
    expect(fromApi.events[0]).toMatchObject({ type: 'user.exported', actor: { type: 'secret_key' } });
    expect(fromApi.events[1]).toMatchObject({ type: 'user.exported', actor: { type: 'operator' } });
    expect(fromCli.events[0]).toEqual(fromApi.events[1]);
    expect({ ...fromCli, events: fromCli.events.slice(1) }).toEqual({ ...fromApi, events: fromApi.events.slice(2) });
    const refused = await server.cli(['user', 'export', other.app_id, alice.userId]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('user not found');
    expect(refused.stdout).toBe('');
  });

  it('14 the OpenAPI document declares the deletion and export routes with their schemas', async () => {
    const doc = (await api(server, 'GET', '/openapi.json')).body;
    expect(doc.paths['/v1/users/{user_id}'].delete.responses['200']).toBeDefined();
    expect(doc.paths['/v1/me'].delete.responses['403']).toBeDefined();
    const exported = doc.paths['/v1/users/{user_id}/export'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(exported.properties)).toEqual(['user', 'identities', 'sessions', 'tables', 'objects', 'factors', 'organizations', 'events']);
  });
});
