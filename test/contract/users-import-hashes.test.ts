import { randomBytes } from 'node:crypto';
import { argon2d, argon2i, argon2id, bcrypt, createSHA1, createSHA256, createSHA512, md5, pbkdf2, scrypt, sha1, sha256, sha512 } from 'hash-wasm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryDatabase } from '../helpers/db.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { sharedServer, type TestServer } from '../helpers/server.js';

// docs/import.md: every hash family POST /v1/users/import takes signs in with the right password and refuses a
// wrong one, before and after the first sign-in replaces it with argon2id (in the write that opens the session:
// the old hash is gone). The hashes are made by hash-wasm (an implementation apart from the server's), or are
// the families' published examples (PHP's bcrypt, Firebase's scrypt).

let server: TestServer;
let app: TestApp;

beforeAll(async () => {
  server = await sharedServer();
  app = await createApp(server, { name: 'Moving in' });
});
afterAll(async () => {
  await server?.stop();
});

let counter = 0;
const uniqueEmail = () => `hash.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;
const importUsers = (body: unknown, key = app.secret_key) => api(server, 'POST', '/v1/users/import', { bearer: key, body });
const signIn = (email: string, password: string, target = app) => api(server, 'POST', '/v1/signins', { publishableKey: target.publishable_key, body: { email, password } });
const storedHash = async (userId: string) => (await queryDatabase(server.databaseUrl, `select password_hash from users where id = '${userId}'`))[0]!.password_hash as string;
const b64 = (bytes: Uint8Array | Buffer) => Buffer.from(bytes).toString('base64');

const PASSWORD = 'correct horse battery';

interface Family {
  name: string;
  password: string;
  hash: () => Promise<Record<string, unknown>>;
}

const salt = randomBytes(16);
const FAMILIES: Family[] = [
  { name: 'bcrypt $2a$ (hash-wasm)', password: PASSWORD, hash: async () => ({ algorithm: 'bcrypt', hash: await bcrypt({ password: PASSWORD, salt, costFactor: 5, outputType: 'encoded' }) }) },
  // PHP's manual: password_hash('rasmuslerdorf', PASSWORD_DEFAULT).
  { name: 'bcrypt $2y$ (PHP)', password: 'rasmuslerdorf', hash: async () => ({ algorithm: 'bcrypt', hash: '$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a' }) },
  { name: 'argon2id', password: PASSWORD, hash: async () => ({ algorithm: 'argon2id', hash: await argon2id({ password: PASSWORD, salt, parallelism: 1, iterations: 3, memorySize: 4096, hashLength: 32, outputType: 'encoded' }) }) },
  { name: 'argon2i', password: PASSWORD, hash: async () => ({ algorithm: 'argon2i', hash: await argon2i({ password: PASSWORD, salt, parallelism: 2, iterations: 2, memorySize: 8192, hashLength: 32, outputType: 'encoded' }) }) },
  { name: 'argon2d', password: PASSWORD, hash: async () => ({ algorithm: 'argon2d', hash: await argon2d({ password: PASSWORD, salt, parallelism: 1, iterations: 2, memorySize: 4096, hashLength: 24, outputType: 'encoded' }) }) },
  {
    name: 'scrypt',
    password: PASSWORD,
    hash: async () => ({ algorithm: 'scrypt', salt: b64(salt), n: 16384, r: 8, p: 1, hash: b64(await scrypt({ password: PASSWORD, salt, costFactor: 16384, blockSize: 8, parallelism: 1, hashLength: 64, outputType: 'binary' })) }),
  },
  {
    name: 'scrypt, key_length 32',
    password: PASSWORD,
    hash: async () => ({ algorithm: 'scrypt', salt: b64(salt), n: 1024, r: 4, p: 2, key_length: 32, hash: b64(await scrypt({ password: PASSWORD, salt, costFactor: 1024, blockSize: 4, parallelism: 2, hashLength: 32, outputType: 'binary' })) }),
  },
  // Firebase's published example (its scrypt repository's README): the project's parameters and one user.
  {
    name: 'firebase_scrypt (Firebase example)',
    password: 'user1password',
    hash: async () => ({
      algorithm: 'firebase_scrypt',
      hash: 'lSrfV15cpx95/sZS2W9c9Kp6i/LVgQNDNC/qzrCnh1SAyZvqmZqAjTdn3aoItz+VHjoZilo78198JAdRuid5lQ==',
      salt: '42xEC+ixf3L2lw==',
      signer_key: 'jxspr8Ki0RYycVU8zykbdLGjFQ3McFUH0uiiTvC8pVMXAn210wjLNmdZJzxUECKbm0QsEmYUSDzZvpjeJ9WmXA==',
      salt_separator: 'Bw==',
      rounds: 8,
      mem_cost: 14,
    }),
  },
  {
    name: 'pbkdf2_sha256 (Django form)',
    password: PASSWORD,
    hash: async () => ({ algorithm: 'pbkdf2_sha256', hash: `pbkdf2_sha256$30000$saltysalt$${b64(await pbkdf2({ password: PASSWORD, salt: 'saltysalt', iterations: 30000, hashLength: 32, hashFunction: createSHA256(), outputType: 'binary' }))}` }),
  },
  {
    name: 'pbkdf2_sha512 (PHC form)',
    password: PASSWORD,
    hash: async () => ({
      algorithm: 'pbkdf2_sha512',
      hash: `$pbkdf2-sha512$i=10000$${b64(salt).replace(/=+$/, '')}$${b64(await pbkdf2({ password: PASSWORD, salt, iterations: 10000, hashLength: 64, hashFunction: createSHA512(), outputType: 'binary' })).replace(/=+$/, '')}`,
    }),
  },
  {
    name: 'pbkdf2_sha1 (Django form)',
    password: PASSWORD,
    hash: async () => ({ algorithm: 'pbkdf2_sha1', hash: `pbkdf2_sha1$20000$pepper$${b64(await pbkdf2({ password: PASSWORD, salt: 'pepper', iterations: 20000, hashLength: 20, hashFunction: createSHA1(), outputType: 'binary' }))}` }),
  },
  { name: 'md5, no salt', password: PASSWORD, hash: async () => ({ algorithm: 'md5', hash: await md5(PASSWORD) }) },
  { name: 'sha1, salt prefix', password: PASSWORD, hash: async () => ({ algorithm: 'sha1', hash: await sha1(`s4lt${PASSWORD}`), salt: 's4lt', salt_position: 'prefix' }) },
  { name: 'sha256, salt suffix', password: PASSWORD, hash: async () => ({ algorithm: 'sha256', hash: (await sha256(`${PASSWORD}s4lt`)).toUpperCase(), salt: 's4lt', salt_position: 'suffix' }) },
  {
    name: 'sha512, base64 salt prefix',
    password: PASSWORD,
    hash: async () => ({ algorithm: 'sha512', hash: await sha512(Buffer.concat([salt, Buffer.from(PASSWORD)])), salt: b64(salt), salt_encoding: 'base64', salt_position: 'prefix' }),
  },
];

describe('19 each hash family signs in, before and after the re-hash', () => {
  for (const family of FAMILIES) {
    it(family.name, async () => {
      const email = uniqueEmail();
      const imported = await importUsers({ users: [{ email, email_verified: true, password_hash: await family.hash() }] });
      expect(imported.status, JSON.stringify(imported.body)).toBe(200);
      expect(imported.body).toMatchObject({ created: 1, skipped: 0, failed: 0 });
      const userId = imported.body.results[0].user_id as string;
      const before = await storedHash(userId);
      expect(before.startsWith('$argon2id$v=19$m=19456')).toBe(false);

      expect((await signIn(email, `${family.password}x`)).body.code).toBe('invalid_credentials');
      expect(await storedHash(userId)).toBe(before);
      const first = await signIn(email, family.password);
      expect(first.status, JSON.stringify(first.body)).toBe(200);
      expect(first.body.user_id).toBe(userId);
      // The session and the new hash committed together: the imported hash is gone.
      const after = await storedHash(userId);
      expect(after).toMatch(/^\$argon2id\$v=19\$m=19456,t=2,p=1\$/);

      expect((await signIn(email, family.password)).status).toBe(200);
      expect((await signIn(email, 'not the password at all')).status).toBe(401);
      expect(await storedHash(userId)).toBe(after);
    });
  }

  it('a user with a plain password (hashed by the server) signs in; an unknown email is refused as a wrong password is', async () => {
    const email = uniqueEmail();
    const imported = await importUsers({ users: [{ email, password: PASSWORD }] });
    expect(imported.body.created).toBe(1);
    expect(await storedHash(imported.body.results[0].user_id)).toMatch(/^\$argon2id\$v=19\$m=19456/);
    expect((await signIn(email, PASSWORD)).status).toBe(200);
    const unknown = await signIn(uniqueEmail(), PASSWORD);
    expect(unknown.status).toBe(401);
    expect(unknown.body.code).toBe('invalid_credentials');
  });
});

describe('19 caps and malformed hashes fail their item before anything is stored', () => {
  const refused: [string, Record<string, unknown>][] = [
    ['bcrypt cost 16', { algorithm: 'bcrypt', hash: `$2b$16$${'a'.repeat(53)}` }],
    ['bcrypt cut short', { algorithm: 'bcrypt', hash: '$2b$10$abc' }],
    ['argon2 m over 262144', { algorithm: 'argon2id', hash: `$argon2id$v=19$m=262145,t=2,p=1$${b64(salt)}$${b64(salt)}` }],
    ['argon2i hash given as argon2id', { algorithm: 'argon2id', hash: `$argon2i$v=19$m=4096,t=2,p=1$${b64(salt)}$${b64(salt)}` }],
    ['scrypt n over 2^20', { algorithm: 'scrypt', salt: b64(salt), n: 2 ** 21, r: 1, p: 1, hash: b64(randomBytes(64)) }],
    ['scrypt n not a power of two', { algorithm: 'scrypt', salt: b64(salt), n: 1000, r: 8, p: 1, hash: b64(randomBytes(64)) }],
    ['scrypt hash of the wrong length', { algorithm: 'scrypt', salt: b64(salt), n: 1024, r: 8, p: 1, hash: b64(randomBytes(32)) }],
    ['firebase rounds 9', { algorithm: 'firebase_scrypt', hash: b64(randomBytes(64)), salt: b64(salt), signer_key: b64(randomBytes(64)), salt_separator: 'Bw==', rounds: 9, mem_cost: 14 }],
    ['firebase mem_cost 15', { algorithm: 'firebase_scrypt', hash: b64(randomBytes(64)), salt: b64(salt), signer_key: b64(randomBytes(64)), salt_separator: 'Bw==', rounds: 8, mem_cost: 15 }],
    ['pbkdf2 over 10,000,000 iterations', { algorithm: 'pbkdf2_sha256', hash: `pbkdf2_sha256$10000001$salt$${b64(randomBytes(32))}` }],
    ['pbkdf2 of another digest', { algorithm: 'pbkdf2_sha1', hash: `pbkdf2_sha256$1000$salt$${b64(randomBytes(32))}` }],
    ['md5 not hex', { algorithm: 'md5', hash: 'z'.repeat(32) }],
    ['sha256 salt without its position', { algorithm: 'sha256', hash: 'a'.repeat(64), salt: 'x' }],
    ['an unknown algorithm', { algorithm: 'crypt', hash: 'aa' }],
    ['a field its family does not take', { algorithm: 'bcrypt', hash: `$2b$10$${'a'.repeat(53)}`, rounds: 8 }],
  ];
  it('each is its own error (invalid_password_hash) and no user is made', async () => {
    const emails = refused.map(() => uniqueEmail());
    const res = await importUsers({ users: refused.map(([, hash], i) => ({ email: emails[i], password_hash: hash })) });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ created: 0, skipped: 0, failed: refused.length });
    res.body.results.forEach((result: Record<string, unknown>, i: number) => {
      expect(result, refused[i]![0]).toMatchObject({ index: i, status: 'error', user_id: null, code: 'invalid_password_hash' });
    });
    for (const email of emails) expect((await api(server, 'GET', `/v1/users?email=${encodeURIComponent(email)}`, { bearer: app.secret_key })).body.total).toBe(0);
  });
});
