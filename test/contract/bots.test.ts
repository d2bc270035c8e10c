import { spawn } from 'node:child_process';
import { resolve } from 'node:path';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  botAuthBody,
  confirmedChallenge,
  createDonation,
  expireDonation,
  newBotKeys,
  setFailMode,
  startSim,
  type BotKeys,
  type ConfirmationsSim,
} from '../helpers/confirmations.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { freePort, sharedServer, startServer, type TestServer } from '../helpers/server.js';

let sim: ConfirmationsSim;
let server: TestServer; // CONFIRMATIONS_URL points at the simulator
let downServer: TestServer; // CONFIRMATIONS_URL points at a closed port
let unsetServer: TestServer; // CONFIRMATIONS_URL unset: the worker's shared server of the default environment (test/suite.mjs SHARED)
let appA: TestApp;
let appB: TestApp; // another tenant's app on the same server
let appMin5: TestApp; // bot_min_usd 5
let downApp: TestApp;
let unsetApp: TestApp;

beforeAll(async () => {
  sim = await startSim();
  // Nothing listens on port 1 (a port probed free could be taken by another test's server meanwhile).
  const closedPort = 1;
  [server, downServer, unsetServer] = await Promise.all([
    startServer({ CONFIRMATIONS_URL: sim.url }),
    startServer({ CONFIRMATIONS_URL: `http://127.0.0.1:${closedPort}` }),
    sharedServer(),
  ]);
  [appA, appB, appMin5, downApp, unsetApp] = await Promise.all([
    createApp(server, { name: 'A' }),
    createApp(server, { name: 'B' }),
    createApp(server, { name: 'Min5', args: ['--bot-min-usd', '5'] }),
    createApp(downServer),
    createApp(unsetServer),
  ]);
}, 120_000);
afterAll(async () => {
  await Promise.all([server?.stop(), downServer?.stop(), unsetServer?.stop()]);
  await sim?.close();
});

const signup = (app: TestApp, challenge_id: string, public_key: string, on: TestServer = server) =>
  api(on, 'POST', '/v1/bot/signup', { publishableKey: app.publishable_key, body: { challenge_id, public_key } });

const auth = (app: TestApp, body: object) => api(server, 'POST', '/v1/bot/auth', { publishableKey: app.publishable_key, body });

/** A registered bot of `app` and its keys. */
async function newBot(app: TestApp): Promise<{ botId: string; keys: BotKeys }> {
  const keys = newBotKeys();
  const res = await signup(app, await confirmedChallenge(sim), keys.publicKey);
  expect(res.status).toBe(200);
  return { botId: res.body.bot_id, keys };
}

const now = () => Math.floor(Date.now() / 1000);

describe('4.4 bots: sign-up and auth end to end', () => {
  it('a confirmed donation registers a bot; its signature yields a session whose token verifies offline', async () => {
    const keys = newBotKeys();
    const challengeId = await confirmedChallenge(sim);
    const registered = await signup(appA, challengeId, keys.publicKey);
    expect(registered.status).toBe(200);
    expect(registered.body).toEqual({ bot_id: expect.stringMatching(/^[0-9a-f-]{36}$/), public_key: keys.publicKey });

    const res = await auth(appA, botAuthBody(keys, appA.app_id, registered.body.bot_id));
    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['access_token', 'refresh_token', 'session_id', 'user_id']);
    expect(res.body.user_id).toBe(registered.body.bot_id);

    const jwks = createRemoteJWKSet(new URL(`${server.url}/.well-known/jwks.json?app_id=${appA.app_id}`));
    const { payload } = await jwtVerify(res.body.access_token, jwks, { audience: appA.app_id, issuer: server.url, algorithms: ['RS256'] });
    expect(payload).toMatchObject({ sub: registered.body.bot_id, sid: res.body.session_id, email: null, email_verified: false });
  });

  it('2 Bot: the bot is a user with is_bot true and email null in GET /v1/me', async () => {
    const { botId, keys } = await newBot(appA);
    const session = await auth(appA, botAuthBody(keys, appA.app_id, botId));
    const me = await api(server, 'GET', '/v1/me', { publishableKey: appA.publishable_key, bearer: session.body.access_token });
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ user_id: botId, email: null, is_bot: true });
  });

  it('4.5 users: the bot appears in the user list with is_bot true and email null', async () => {
    const { botId } = await newBot(appA);
    const list = await api(server, 'GET', '/v1/users?limit=200', { bearer: appA.secret_key });
    expect(list.status).toBe(200);
    expect(list.body.users.find((u: { id: string }) => u.id === botId)).toMatchObject({ id: botId, email: null, is_bot: true });
  });

  it('4.4 bot/signup: without a publishable key is 401', async () => {
    const res = await api(server, 'POST', '/v1/bot/signup', { body: { challenge_id: 'x', public_key: newBotKeys().publicKey } });
    expect(res.status).toBe(401);
  });
});

describe('4.4 bot/signup errors (contract 7)', () => {
  it('400 when the public key is not base64, 31 bytes, or non-canonical base64; the challenge stays usable', async () => {
    const challengeId = await confirmedChallenge(sim);
    const good = newBotKeys().publicKey; // 44 chars, one "=" of padding
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    // The 43rd character carries 4 bits of the key and 2 unused bits: setting one decodes to the same bytes.
    const lastBitsSet = good.slice(0, 42) + alphabet[alphabet.indexOf(good[42]) ^ 1] + '=';
    const urlSafe = Buffer.alloc(32, 0xff).toString('base64url'); // "____...8": base64url, unpadded
    const bad = ['not base64 at all!', Buffer.alloc(31, 7).toString('base64'), Buffer.alloc(33, 7).toString('base64'), good.slice(0, 43), lastBitsSet, ` ${good}`, urlSafe];
    for (const key of bad) {
      const res = await signup(appA, challengeId, key);
      expect(res.status, key).toBe(400);
      expect(Object.keys(res.body)).toEqual(['detail', 'code']);
    }
    expect((await signup(appA, challengeId, good)).status).toBe(200);
  });

  it('400 when the challenge is pending or expired', async () => {
    const pending = await createDonation(sim);
    expect((await signup(appA, pending.challenge_id, newBotKeys().publicKey)).status).toBe(400);
    const expired = await createDonation(sim);
    await expireDonation(sim, expired.challenge_id);
    expect((await signup(appA, expired.challenge_id, newBotKeys().publicKey)).status).toBe(400);
  });

  it("400 when the donation is under the app's bot_min_usd; at the minimum it registers", async () => {
    expect((await signup(appMin5, await confirmedChallenge(sim, 4.99), newBotKeys().publicKey)).status).toBe(400);
    expect((await signup(appMin5, await confirmedChallenge(sim, 5), newBotKeys().publicKey)).status).toBe(200);
  });

  it('404 when the provider does not know the challenge', async () => {
    const res = await signup(appA, '5b0c1f7e-0000-4000-8000-000000000000', newBotKeys().publicKey);
    expect(res.status).toBe(404);
    expect(Object.keys(res.body)).toEqual(['detail', 'code']);
  });

  it('409 when the challenge was already used, in this app or another', async () => {
    const challengeId = await confirmedChallenge(sim);
    expect((await signup(appA, challengeId, newBotKeys().publicKey)).status).toBe(200);
    expect((await signup(appA, challengeId, newBotKeys().publicKey)).status).toBe(409);
    expect((await signup(appB, challengeId, newBotKeys().publicKey)).status).toBe(409);
  });

  it('409 when the key is already registered in the app; that challenge stays usable with another key', async () => {
    const { keys } = await newBot(appA);
    const challengeId = await confirmedChallenge(sim);
    const dup = await signup(appA, challengeId, keys.publicKey);
    expect(dup.status).toBe(409);
    expect((await signup(appA, challengeId, newBotKeys().publicKey)).status).toBe(200);
  });

  it('the same key may register in another app', async () => {
    const { keys } = await newBot(appA);
    expect((await signup(appB, await confirmedChallenge(sim), keys.publicKey)).status).toBe(200);
  });

  it('concurrent sign-ups with one challenge: exactly one wins, the others get 409', async () => {
    const challengeId = await confirmedChallenge(sim);
    const results = await Promise.all(Array.from({ length: 6 }, () => signup(appA, challengeId, newBotKeys().publicKey)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409, 409, 409]);
  });

  it('502 when the provider is unreachable (closed port)', async () => {
    const res = await signup(downApp, '5b0c1f7e-0000-4000-8000-000000000000', newBotKeys().publicKey, downServer);
    expect(res.status).toBe(502);
    expect(Object.keys(res.body)).toEqual(['detail', 'code']);
  });

  it('502 when CONFIRMATIONS_URL is not configured', async () => {
    expect((await signup(unsetApp, '5b0c1f7e-0000-4000-8000-000000000000', newBotKeys().publicKey, unsetServer)).status).toBe(502);
  });

  it('502 when the provider answers 500; the challenge is not spent', async () => {
    const challengeId = await confirmedChallenge(sim);
    await setFailMode(sim, 'error');
    try {
      expect((await signup(appA, challengeId, newBotKeys().publicKey)).status).toBe(502);
    } finally {
      await setFailMode(sim, 'none');
    }
    expect((await signup(appA, challengeId, newBotKeys().publicKey)).status).toBe(200);
  });

  it('502 when the provider does not answer within 5 seconds', async () => {
    await setFailMode(sim, 'hang');
    try {
      const started = Date.now();
      expect((await signup(appA, '5b0c1f7e-0000-4000-8000-000000000000', newBotKeys().publicKey)).status).toBe(502);
      expect(Date.now() - started).toBeGreaterThanOrEqual(4_900);
    } finally {
      await setFailMode(sim, 'none');
    }
  }, 15_000);
});

describe('4.4 bot/auth errors', () => {
  it('a timestamp within 5 minutes is accepted; more than 5 minutes either way is 401', async () => {
    const { botId, keys } = await newBot(appA);
    expect((await auth(appA, botAuthBody(keys, appA.app_id, botId, now() - 280))).status).toBe(200);
    expect((await auth(appA, botAuthBody(keys, appA.app_id, botId, now() + 280))).status).toBe(200);
    expect((await auth(appA, botAuthBody(keys, appA.app_id, botId, now() - 310))).status).toBe(401);
    expect((await auth(appA, botAuthBody(keys, appA.app_id, botId, now() + 310))).status).toBe(401);
  });

  it('401 for a signature by another key', async () => {
    const { botId } = await newBot(appA);
    const res = await auth(appA, botAuthBody(newBotKeys(), appA.app_id, botId));
    expect(res.status).toBe(401);
    expect(Object.keys(res.body)).toEqual(['detail', 'code']);
  });

  it('401 for a signature of another app id, or of another timestamp, or garbage', async () => {
    const { botId, keys } = await newBot(appA);
    expect((await auth(appA, botAuthBody(keys, appB.app_id, botId))).status).toBe(401);
    const body = botAuthBody(keys, appA.app_id, botId);
    expect((await auth(appA, { ...body, timestamp: body.timestamp - 1 })).status).toBe(401);
    expect((await auth(appA, { ...body, signature: 'AAAA' })).status).toBe(401);
  });

  it('401 when a signature is replayed, also spelled as other base64', async () => {
    const { botId, keys } = await newBot(appA);
    const body = botAuthBody(keys, appA.app_id, botId);
    expect((await auth(appA, body)).status).toBe(200);
    expect((await auth(appA, body)).status).toBe(401);
    expect((await auth(appA, { ...body, signature: body.signature.replace(/=+$/, '') })).status).toBe(401);
  });

  it('404 for an unknown bot, a bot of another app, or a user that is not a bot', async () => {
    const keys = newBotKeys();
    const unknown = '5b0c1f7e-0000-4000-8000-000000000000';
    expect((await auth(appA, botAuthBody(keys, appA.app_id, unknown))).status).toBe(404);
    const other = await newBot(appB);
    expect((await auth(appA, botAuthBody(other.keys, appA.app_id, other.botId))).status).toBe(404);
    const human = await api(server, 'POST', '/v1/users', { bearer: appA.secret_key, body: { email: `human-${Date.now()}@example.com` } });
    expect(human.status).toBe(201);
    expect((await auth(appA, botAuthBody(keys, appA.app_id, human.body.id))).status).toBe(404);
  });

  it('400 when the body is malformed (bot_id not a UUID, timestamp not an integer)', async () => {
    expect((await auth(appA, { bot_id: 'nope', timestamp: now(), signature: 'AAAA' })).status).toBe(400);
    expect((await auth(appA, { bot_id: '5b0c1f7e-0000-4000-8000-000000000000', timestamp: 1.5, signature: 'AAAA' })).status).toBe(400);
  });
});

describe('contract 7: the provider simulator (npm run confirmations-sim)', () => {
  it('runs as a script, prints its URL and serves create, read, confirm and validation', async () => {
    const port = await freePort();
    const child = spawn(process.execPath, [resolve(import.meta.dirname, '../../dist/tools/confirmations-sim.js'), '--port', String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      const url = await new Promise<string>((resolveUrl, reject) => {
        let out = '';
        child.stdout!.on('data', (chunk) => {
          out += chunk;
          const match = /listening on (http:\/\/\S+)/.exec(out);
          if (match) resolveUrl(match[1]);
        });
        child.once('exit', (code) => reject(new Error(`simulator exited ${code}`)));
      });
      expect(url).toBe(`http://127.0.0.1:${port}`);
      const created = await fetch(`${url}/challenges`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ chain: 'eth', usd_amount: 3 }) });
      expect(created.status).toBe(201);
      const challenge = await created.json();
      expect(challenge).toMatchObject({ chain: 'eth', usd_amount: 3, status: 'PENDING', address: expect.any(String), amount: expect.any(String) });
      expect((await fetch(`${url}/challenges/${challenge.challenge_id}/confirm`, { method: 'POST' })).status).toBe(200);
      expect(await (await fetch(`${url}/challenges/${challenge.challenge_id}`)).json()).toMatchObject({ status: 'CONFIRMED' });
      expect((await fetch(`${url}/challenges/unknown`)).status).toBe(404);
      const invalid = await fetch(`${url}/challenges`, { method: 'POST', body: JSON.stringify({ chain: 'eth', usd_amount: -1 }) });
      expect(invalid.status).toBe(400);
      expect(Object.keys(await invalid.json())).toEqual(['detail']);
    } finally {
      child.kill('SIGTERM');
    }
  });
});
