import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { hash as bcryptHash } from '@node-rs/bcrypt';
import { argon2id, createSHA256, md5, pbkdf2 } from 'hash-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { base32Encode } from '../../src/crypto/totp.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { codeAt, verifyMfa } from '../helpers/mfa.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/import.md: `gatehouse user import` reads each vendor's export as the vendor writes it (made here in
// that format), imports it through the service of POST /v1/users/import, and the users sign in with their
// old passwords; a second run with --on-conflict skip imports nothing.

let server: TestServer;
let dir: string;

beforeAll(async () => {
  server = await startServer({}, { cliProcess: true });
  dir = mkdtempSync(join(tmpdir(), 'gh-import-'));
});
afterAll(async () => {
  await server?.stop();
});

const file = (name: string, text: string) => {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
};
const signIn = (app: TestApp, email: string, password: string) => api(server, 'POST', '/v1/signins', { publishableKey: app.publishable_key, body: { email, password } });
const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const stamp = Date.now().toString(36);

async function importFile(app: TestApp, args: string[]) {
  const result = await server.cli(['user', 'import', app.app_id, ...args, '--json']);
  return { code: result.code, totals: result.stdout.trim() ? JSON.parse(result.stdout) : undefined, stderr: result.stderr };
}

/** Imports the file, checks the totals, runs it again with skip (nothing imported), signs each user in. */
async function importAndSignIn(app: TestApp, args: string[], expected: { created: number; failed: number }, passwords: [string, string][]) {
  const first = await importFile(app, [...args, '--on-conflict', 'skip']);
  expect(first.totals, `${first.stderr} ${JSON.stringify(first.totals?.failures)}`).toMatchObject(expected);
  expect(first.code).toBe(expected.failed > 0 ? 1 : 0);
  const second = await importFile(app, [...args, '--on-conflict', 'skip']);
  expect(second.totals).toMatchObject({ created: 0, skipped: expected.created, failed: expected.failed });
  for (const [email, password] of passwords) {
    expect((await signIn(app, email, `${password}!`)).status).toBe(401);
    const res = await signIn(app, email, password);
    expect(res.status, `${email}: ${JSON.stringify(res.body)}`).toBe(200);
  }
  return first.totals;
}

describe('19 gatehouse user import', () => {
  it('Firebase auth:export JSON with the console hash config: scrypt passwords, Google links, a phone-only user failing alone', async () => {
    const app = await createApp(server, { name: 'From Firebase' });
    const email = `user1.${stamp}@example.com`;
    const exported = {
      users: [
        {
          localId: 'fb-1',
          email,
          emailVerified: true,
          passwordHash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
          salt: '42xEC+ixf3L2lw==',
          lastSignedInAt: '1486324027000',
          createdAt: '1486324027000',
          providerUserInfo: [{ providerId: 'google.com', rawId: '1093', email, displayName: 'User One' }, { providerId: 'password', rawId: email, email }],
        },
        { localId: 'fb-2', phoneNumber: '+15555550100', createdAt: '1486324027000' },
        { localId: 'fb-3', email: `nopass.${stamp}@example.com`, emailVerified: false, createdAt: '1486324027000' },
      ],
    };
    const config = file('fb-hash.txt', 'hash_config {\n  algorithm: SCRYPT,\n  base64_signer_key: jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==,\n  base64_salt_separator: Bw==,\n  rounds: 8,\n  mem_cost: 14,\n}\n');
    const totals = await importAndSignIn(app, [file('firebase.json', JSON.stringify(exported, null, 2)), '--format', 'firebase', '--hash-config', config], { created: 2, failed: 1 }, [[email, 'user1password']]);
    expect(totals.failures).toEqual([{ index: 1, detail: expect.stringMatching(/no email/), code: 'validation_failed' }]);
    const found = await api(server, 'GET', '/v1/users?external_id=fb-1', { bearer: app.secret_key });
    expect(found.body.users[0]).toMatchObject({ email, email_verified: true, created_at: '2017-02-05T19:47:07.000Z' });
    const exportDoc = await api(server, 'GET', `/v1/users/${found.body.users[0].id}/export`, { bearer: app.secret_key });
    expect(exportDoc.body.identities.map((i: { provider: string; subject: string }) => `${i.provider}:${i.subject}`)).toEqual(['google:1093']);
  });

  it("Supabase's auth.users as CSV and as JSON: bcrypt encrypted_password, email_confirmed_at", async () => {
    const app = await createApp(server, { name: 'From Supabase' });
    const [ada, bob, cy] = ['ada', 'bob', 'cy'].map((name) => `${name}.${stamp}@example.com`) as [string, string, string];
    const header = 'instance_id,id,aud,role,email,encrypted_password,email_confirmed_at,invited_at,confirmation_token,recovery_token,last_sign_in_at,raw_app_meta_data,raw_user_meta_data,is_super_admin,created_at,updated_at,phone,deleted_at,is_anonymous';
    const row = (id: string, email: string, hash: string, confirmed: string) =>
      `00000000-0000-0000-0000-000000000000,${id},authenticated,authenticated,${email},${hash},${confirmed},,,,,"{""provider"":""email"",""providers"":[""email""]}","{""name"":""A, B""}",,2024-01-02 03:04:05.123456+00,2024-01-02 03:04:05.123456+00,,,false`;
    const csv = [header, row('0b4f6c1e-0000-4000-8000-000000000001', ada, await bcryptHash('ada password', 6), '2024-01-02 03:05:00+00'), row('0b4f6c1e-0000-4000-8000-000000000002', bob, await bcryptHash('bob password', 6), '')].join('\n') + '\n';
    await importAndSignIn(app, [file('users.csv', csv), '--format', 'supabase'], { created: 2, failed: 0 }, [[ada, 'ada password'], [bob, 'bob password']]);
    const shown = await api(server, 'GET', `/v1/users?email=${encodeURIComponent(bob)}`, { bearer: app.secret_key });
    expect(shown.body.users[0]).toMatchObject({ email_verified: false, external_id: '0b4f6c1e-0000-4000-8000-000000000002', created_at: '2024-01-02T03:04:05.123Z' });
    const json = [{ id: '0b4f6c1e-0000-4000-8000-000000000003', email: cy, encrypted_password: await bcryptHash('cy password', 6), email_confirmed_at: '2024-01-02T03:05:00.000000+00:00', created_at: '2024-01-02T03:04:05.123456+00:00', deleted_at: null }];
    await importAndSignIn(app, [file('users.json', JSON.stringify(json)), '--format', 'supabase'], { created: 1, failed: 0 }, [[cy, 'cy password']]);
  });

  it("Auth0's NDJSON: the password hash export's bcrypt, custom_password_hash (md5, pbkdf2), a social user, a line that is not JSON", async () => {
    const app = await createApp(server, { name: 'From Auth0' });
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((name) => `${name}.${stamp}@example.com`) as [string, string, string, string];
    const salt = 'NaCl';
    const lines = [
      { _id: { $oid: '60b7c1f0a1b2c3d4e5f60718' }, email_verified: true, email: a, passwordHash: await bcryptHash('a password', 6), password_set_date: { $date: '2021-06-02T17:30:00.000Z' }, tenant: 'acme', connection: 'Username-Password-Authentication', _tmp_is_unique: true },
      { user_id: 'auth0|b1', email: b, email_verified: false, created_at: '2020-01-01T00:00:00.000Z', custom_password_hash: { algorithm: 'md5', hash: { value: Buffer.from(await md5(`${salt}b password`), 'hex').toString('base64'), encoding: 'base64' }, salt: { value: salt, position: 'prefix' } } },
      { user_id: 'auth0|c1', email: c, email_verified: true, custom_password_hash: { algorithm: 'pbkdf2', hash: { value: `$pbkdf2-sha256$i=1000,l=32$${b64(new TextEncoder().encode('saltsalt')).replace(/=+$/, '')}$${b64(await pbkdf2({ password: 'c password', salt: 'saltsalt', iterations: 1000, hashLength: 32, hashFunction: createSHA256(), outputType: 'binary' })).replace(/=+$/, '')}` } } },
      { user_id: 'google-oauth2|1177', email: d, email_verified: true, identities: [{ provider: 'google-oauth2', user_id: '1177', connection: 'google-oauth2', isSocial: true }] },
    ];
    const ndjson = `${JSON.stringify(lines[0])}\n${JSON.stringify(lines[1])}\n{"email": broken\n${JSON.stringify(lines[2])}\n${JSON.stringify(lines[3])}\n`;
    const totals = await importAndSignIn(app, [file('auth0.ndjson', ndjson), '--format', 'auth0'], { created: 4, failed: 1 }, [[a, 'a password'], [b, 'b password'], [c, 'c password']]);
    expect(totals.failures.map((f: { index: number }) => f.index)).toEqual([2]);
    expect((await api(server, 'GET', '/v1/users?external_id=60b7c1f0a1b2c3d4e5f60718', { bearer: app.secret_key })).body.users[0]).toMatchObject({ email: a, email_verified: true });
  });

  it("Clerk's CSV export: bcrypt and Django pbkdf2 digests, a TOTP secret that asks for its code", async () => {
    const app = await createApp(server, { name: 'From Clerk' });
    const [a, b, t] = ['a', 'b', 't'].map((name) => `${name}.${stamp}@example.com`) as [string, string, string];
    const secret = base32Encode(Buffer.alloc(20, 9));
    const django = `pbkdf2_sha256$20000$pepper$${b64(await pbkdf2({ password: 'b password', salt: 'pepper', iterations: 20000, hashLength: 32, hashFunction: createSHA256(), outputType: 'binary' }))}`;
    const argon = await argon2id({ password: 't password', salt: 'saltsaltsalt', parallelism: 1, iterations: 2, memorySize: 1024, hashLength: 32, outputType: 'encoded' });
    const csv = [
      'id,first_name,last_name,username,primary_email_address,primary_phone_number,verified_email_addresses,unverified_email_addresses,verified_phone_numbers,unverified_phone_numbers,totp_secret,password_digest,password_hasher',
      `user_2a,Ada,Lovelace,,${a},,${a},,,,,${await bcryptHash('a password', 6)},bcrypt`,
      `user_2b,Bob,,,${b},+15555550100,"${b}, other.${stamp}@example.com",,+15555550100,,,${django},pbkdf2_sha256_django`,
      `user_2t,,,,${t},,${t},,,,${secret},"${argon}",argon2id`,
    ].join('\n');
    await importAndSignIn(app, [file('clerk.csv', csv), '--format', 'clerk'], { created: 3, failed: 0 }, [[a, 'a password'], [b, 'b password']]);
    const first = await signIn(app, t, 't password');
    expect(first.body.mfa_required).toBe(true);
    expect((await verifyMfa(server, app, { mfa_token: first.body.mfa_token, code: codeAt(secret) })).status).toBe(200);
  });

  it('gatehouse NDJSON (the API\'s own items); usage errors exit 2; another app\'s id exits 1 and imports nothing', async () => {
    const app = await createApp(server, { name: 'From Gatehouse' });
    const email = `gh.${stamp}@example.com`;
    const path = file('gatehouse.ndjson', `${JSON.stringify({ email, password: 'plain password', external_id: 'gh-1' })}\n`);
    await importAndSignIn(app, [path, '--format', 'gatehouse'], { created: 1, failed: 0 }, [[email, 'plain password']]);
    expect((await server.cli(['user', 'import', app.app_id, path, '--format', 'okta'])).code).toBe(2);
    expect((await server.cli(['user', 'import', app.app_id, path, '--format', 'gatehouse', '--on-conflict', 'merge'])).code).toBe(2);
    expect((await server.cli(['user', 'import', app.app_id, join(dir, 'missing.json'), '--format', 'gatehouse'])).code).toBe(2);
    const unknown = await server.cli(['user', 'import', '00000000-0000-4000-8000-000000000000', path, '--format', 'gatehouse']);
    expect(unknown.code).toBe(1);
  });
});
