import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryDatabase } from '../helpers/db.js';
import { api, cliJson, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { getChallenge, getProof, proofHash, solve, wrongNonce, zeroBits, type Proof } from '../helpers/hashcash.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/api.md (Hashcash challenge) and 4.1 (POST /v1/challenges, hashcash on POST /v1/signups),
// docs/hashcash.md. Apps use difficulty 0 or 8 (and one 6 for the defaults) so the file stays fast.

let server: TestServer; // HASHCASH_ENABLED=true (default), RATE_LIMITS=off
let shortTtl: TestServer; // HASHCASH_TTL_SECONDS=1, challenge_ip limited
let disabled: TestServer; // HASHCASH_ENABLED=false
let app0: TestApp; // difficulty 0
let other: TestApp; // difficulty 0, same tenant
let app8: TestApp; // difficulty 8
let defaults: TestApp; // created without --hashcash-difficulty: the contract default 6
let appOff: TestApp; // --hashcash off
let limited: TestApp; // on shortTtl: for the challenge_ip limit
let expiring: TestApp; // on shortTtl
let plain: TestApp; // on disabled: follows HASHCASH_ENABLED=false
let strict: TestApp; // on disabled: --hashcash on

let emails = 0;
const nextEmail = () => `user${++emails}.${Date.now()}@example.com`;

function signup(target: TestServer, app: TestApp, hashcash?: unknown, email = nextEmail()) {
  return api(target, 'POST', '/v1/signups', { publishableKey: app.publishable_key, body: { email, ...(hashcash === undefined ? {} : { hashcash }) } });
}

beforeAll(async () => {
  [server, shortTtl, disabled] = await Promise.all([
    startServer(),
    startServer({ HASHCASH_TTL_SECONDS: '1', RATE_LIMITS: 'challenge_ip=3/60' }),
    startServer({ HASHCASH_ENABLED: 'false' }),
  ]);
  const [tenantId, ttlTenant, disabledTenant] = await Promise.all([createTenant(server), createTenant(shortTtl), createTenant(disabled)]);
  // The real CLI's defaults, on its own: it runs in this process (test/helpers/cli-in-process.ts), and an SQLite
  // writer of this thread waiting for another of this thread's transactions would wait out its busy timeout.
  defaults = await cliJson<TestApp>(server, ['app', 'create', '--tenant', tenantId, '--name', 'defaults']);
  [app0, other, app8, appOff, limited, expiring, plain, strict] = await Promise.all([
    createApp(server, { tenantId, name: 'zero' }),
    createApp(server, { tenantId, name: 'other' }),
    createApp(server, { tenantId, name: 'eight', args: ['--hashcash-difficulty', '8'] }),
    createApp(server, { tenantId, name: 'off', args: ['--hashcash', 'off'] }),
    createApp(shortTtl, { tenantId: ttlTenant, name: 'limited' }),
    createApp(shortTtl, { tenantId: ttlTenant, name: 'expiring' }),
    createApp(disabled, { tenantId: disabledTenant, name: 'plain' }),
    createApp(disabled, { tenantId: disabledTenant, name: 'strict', args: ['--hashcash', 'on'] }),
  ]);
});
afterAll(async () => {
  await Promise.all([server?.stop(), shortTtl?.stop(), disabled?.stop()]);
});

describe('interface 2 and 4.1: POST /v1/challenges', () => {
  it('answers 200 with the challenge object: argon2id, contract default params, app difficulty, 300 s', async () => {
    const res = await api(server, 'POST', '/v1/challenges', { publishableKey: defaults.publishable_key });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      challenge: expect.any(String),
      difficulty: 6,
      algorithm: 'argon2id',
      params: { time_cost: 1, memory_cost: 8192, parallelism: 1, hash_len: 32 },
      expires_in: 300,
    });
    expect(res.body.challenge.length).toBeGreaterThan(20);
  });

  it('gives a new challenge each time and at the difficulty of the app', async () => {
    const [a, b, eight] = await Promise.all([getChallenge(server, app0.publishable_key), getChallenge(server, app0.publishable_key), getChallenge(server, app8.publishable_key)]);
    expect(a.challenge).not.toBe(b.challenge);
    expect(a.difficulty).toBe(0);
    expect(eight.difficulty).toBe(8);
  });

  it('stores nothing when issuing (the challenge verifies itself)', async () => {
    const count = async () => Number((await queryDatabase(server.databaseUrl, 'SELECT COUNT(*) AS n FROM hashcash_spent'))[0]!.n);
    const before = await count();
    await getChallenge(server, app0.publishable_key);
    expect(await count()).toBe(before);
  });

  it('is 401 without a publishable key', async () => {
    const res = await api(server, 'POST', '/v1/challenges');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });

  it('is rate limited per app and IP (challenge_ip): 429', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) statuses.push((await api(shortTtl, 'POST', '/v1/challenges', { publishableKey: limited.publishable_key })).status);
    expect(statuses).toEqual([200, 200, 200, 429]);
  });
});

describe('interface 4.1 and contract 3: POST /v1/signups proof-of-work', () => {
  it('a proof solved by the reference client (difficulty 6) signs up', async () => {
    const challenge = await getChallenge(server, defaults.publishable_key);
    const nonce = await solve(challenge);
    expect(zeroBits(await proofHash(challenge, nonce))).toBeGreaterThanOrEqual(6);
    const res = await signup(server, defaults, { challenge: challenge.challenge, nonce });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'verification_sent', user_id: expect.any(String) });
  });

  it('422 when hashcash is required and missing; schema errors (400) come first', async () => {
    const res = await signup(server, app0);
    expect(res.status).toBe(422);
    expect(res.body).toEqual({ detail: expect.stringContaining('/v1/challenges'), code: expect.any(String) });
    const bad = await api(server, 'POST', '/v1/signups', { publishableKey: app0.publishable_key, body: { email: 'not-an-email' } });
    expect(bad.status).toBe(400);
  });

  it('400 for a forged MAC, a truncated challenge, garbage, an edited difficulty', async () => {
    const { challenge } = await getChallenge(server, app0.publishable_key);
    const mid = challenge.length - 10; // inside the MAC, away from base64url's spare bits
    const forged = challenge.slice(0, mid) + (challenge[mid] === 'A' ? 'B' : 'A') + challenge.slice(mid + 1);
    const eight = await getChallenge(server, app8.publishable_key);
    const lowered = eight.challenge.replace('.8.', '.0.');
    expect(lowered).not.toBe(eight.challenge);
    for (const [key, bad] of [[app0, forged], [app0, challenge.slice(0, -5)], [app0, 'garbage'], [app0, `${challenge}.x`], [app8, lowered]] as const) {
      const res = await signup(server, key, { challenge: bad, nonce: '1' });
      expect(res.status, bad).toBe(400);
      expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
    }
    // None of those spent the genuine challenge.
    expect((await signup(server, app0, { challenge, nonce: '1' })).status).toBe(200);
  });

  it('400 for a nonce that is empty or longer than 64 characters', async () => {
    const { challenge } = await getChallenge(server, app0.publishable_key);
    expect((await signup(server, app0, { challenge, nonce: '' })).status).toBe(400);
    expect((await signup(server, app0, { challenge, nonce: 'n'.repeat(65) })).status).toBe(400);
    expect((await signup(server, app0, { challenge, nonce: 'n'.repeat(64) })).status).toBe(200);
  });

  it('400 for a challenge of another app, which that app can still use', async () => {
    const proof = await getProof(server, other.publishable_key);
    const res = await signup(server, app0, proof);
    expect(res.status).toBe(400);
    expect((await signup(server, other, proof)).status).toBe(200);
  });

  it('410 for an expired challenge (HASHCASH_TTL_SECONDS=1)', async () => {
    const challenge = await getChallenge(shortTtl, expiring.publishable_key);
    expect(challenge.expires_in).toBe(1);
    const nonce = await solve(challenge);
    // The challenge carries its issue time in milliseconds (v1.<app>.<ms>.…): wait only until just past its
    // second, which the solving above has partly used.
    const issuedAtMs = Number(challenge.challenge.split('.')[2]);
    await new Promise((r) => setTimeout(r, Math.max(0, issuedAtMs + 1_100 - Date.now())));
    const res = await signup(shortTtl, expiring, { challenge: challenge.challenge, nonce });
    expect(res.status).toBe(410);
    expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });

  it('410 when the proof is used again, even for another email', async () => {
    const proof = await getProof(server, app0.publishable_key);
    expect((await signup(server, app0, proof)).status).toBe(200);
    const again = await signup(server, app0, proof);
    expect(again.status).toBe(410);
    expect(again.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
  });

  it('400 for a proof short of the difficulty; the challenge is then spent (410 with a correct nonce)', async () => {
    const challenge = await getChallenge(server, app8.publishable_key);
    const miss = await wrongNonce(challenge);
    expect(zeroBits(await proofHash(challenge, miss))).toBeLessThan(8);
    const short = await signup(server, app8, { challenge: challenge.challenge, nonce: miss });
    expect(short.status).toBe(400);
    const retry = await signup(server, app8, { challenge: challenge.challenge, nonce: await solve(challenge) });
    expect(retry.status).toBe(410);
  });

  it('difficulty 8: a correct nonce signs up', async () => {
    const res = await signup(server, app8, await getProof(server, app8.publishable_key));
    expect(res.status).toBe(200);
  });

  it('difficulty 0 accepts any nonce, but still needs a valid challenge', async () => {
    const { challenge } = await getChallenge(server, app0.publishable_key);
    expect((await signup(server, app0, { challenge, nonce: 'anything at all' })).status).toBe(200);
    expect((await signup(server, app0, { challenge: 'made-up', nonce: 'anything at all' })).status).toBe(400);
  });

  it('an app with --hashcash off signs up without a proof (and ignores one sent anyway)', async () => {
    expect((await signup(server, appOff)).status).toBe(200);
    expect((await signup(server, appOff, { challenge: 'ignored', nonce: '1' })).status).toBe(200);
  });

  it('HASHCASH_ENABLED=false: apps without their own setting sign up without a proof; --hashcash on still needs one', async () => {
    expect((await signup(disabled, plain)).status).toBe(200);
    expect((await signup(disabled, strict)).status).toBe(422);
    expect((await signup(disabled, strict, await getProof(disabled, strict.publishable_key))).status).toBe(200);
  });

  it('concurrent sign-ups with one proof: exactly one is not 410', async () => {
    const proof: Proof = await getProof(server, app0.publishable_key);
    const results = await Promise.all(Array.from({ length: 8 }, () => signup(server, app0, proof)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s !== 410)).toEqual([200]);
  });

  it('a spent challenge is kept only as its SHA-256, with an expiry for pruning', async () => {
    const proof = await getProof(server, app0.publishable_key);
    expect((await signup(server, app0, proof)).status).toBe(200);
    const hash = createHash('sha256').update(proof.challenge).digest('hex');
    const rows = await queryDatabase(server.databaseUrl, `SELECT * FROM hashcash_spent WHERE challenge_hash = '${hash}'`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.app_id).toBe(app0.app_id);
    const expiresIn = (Date.parse(String(rows[0]!.expires_at)) - Date.now()) / 1000;
    expect(expiresIn).toBeGreaterThan(290);
    expect(expiresIn).toBeLessThanOrEqual(300);
  });
});
