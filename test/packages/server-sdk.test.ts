import { createAdminClient, createVerifier, claimsFromRequest, expressAuth, fastifyAuth, GatehouseError, InvalidTokenError, type AccessClaims } from '@gatehouse/server';
import express from 'express';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cliJson, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// @gatehouse/server (packages/server) against a real Gatehouse: offline verification with the JWKS, the
// Express and Fastify middleware, the fetch-style helper, and the typed secret-key admin client.

let server: TestServer;
let app: TestApp;
let other: TestApp;

async function tokenFor(target: TestApp, email = `sdk.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`) {
  const user = await api(server, 'POST', '/v1/users', { bearer: target.secret_key, body: { email } });
  expect(user.status).toBe(201);
  const minted = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: target.secret_key, body: { user_id: user.body.id } });
  expect(minted.status).toBe(200);
  return { userId: user.body.id as string, token: minted.body.token as string, email };
}

beforeAll(async () => {
  server = await startServer();
  const tenantId = await createTenant(server);
  app = await createApp(server, { tenantId });
  other = await createApp(server, { tenantId, name: 'Other' });
});

afterAll(async () => {
  await server?.stop();
});

describe('39 @gatehouse/server: offline verification', () => {
  it("39 server sdk: a token of the app verifies offline, with the user's claims", async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const { userId, token, email } = await tokenFor(app);
    const claims = await verifier.verify(token);
    expect(claims).toMatchObject({ sub: userId, aud: app.app_id, iss: server.url, email });
    expect(claims.sid).toEqual(expect.any(String));
  });

  it("39 server sdk: another app's token, a tampered one and an expired one are refused", async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const foreign = await tokenFor(other);
    await expect(verifier.verify(foreign.token)).rejects.toMatchObject({ name: 'InvalidTokenError', code: 'invalid' });
    const { token } = await tokenFor(app);
    const [header, payload, signature] = token.split('.');
    const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), sub: 'someone-else' })).toString('base64url');
    await expect(verifier.verify(`${header}.${forged}.${signature}`)).rejects.toBeInstanceOf(InvalidTokenError);
    const later = createVerifier({ baseUrl: server.url, appId: app.app_id, now: () => new Date(Date.now() + 16 * 60_000) });
    await expect(later.verify(token)).rejects.toMatchObject({ code: 'expired' });
    await expect(verifier.verify('')).rejects.toMatchObject({ code: 'missing' });
  });

  it('39 server sdk: after a signing-key rotation the new kid is fetched and old tokens still verify', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id, refetchCooldownMs: 0 });
    const before = await tokenFor(app);
    await verifier.verify(before.token);
    await cliJson(server, ['app', 'rotate-keys', app.app_id]);
    const after = await tokenFor(app);
    const kid = (t: string) => JSON.parse(Buffer.from(t.split('.')[0]!, 'base64url').toString()).kid;
    expect(kid(after.token)).not.toBe(kid(before.token));
    expect((await verifier.verify(after.token)).sub).toBe(after.userId);
    expect((await verifier.verify(before.token)).sub).toBe(before.userId);
  });

  it('39 server sdk: claimsFromRequest reads a Bearer header or the __session cookie of a fetch Request', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const { token, userId } = await tokenFor(app);
    const byHeader = await claimsFromRequest(verifier, new Request('http://x/', { headers: { authorization: `Bearer ${token}` } }));
    const byCookie = await claimsFromRequest(verifier, new Request('http://x/', { headers: { cookie: `theme=dark; __session=${token}` } }));
    expect([byHeader.sub, byCookie.sub]).toEqual([userId, userId]);
    await expect(claimsFromRequest(verifier, new Request('http://x/'))).rejects.toMatchObject({ code: 'missing' });
  });
});

describe('39 @gatehouse/server: middleware', () => {
  it('39 server sdk: Express middleware sets req.auth or answers 401 {detail}', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const web = express();
    web.get('/private', expressAuth(verifier), (req, res) => res.json({ user: (req as unknown as { auth: AccessClaims }).auth.sub }));
    const listening = web.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
      const { token, userId } = await tokenFor(app);
      const ok = await fetch(`${base}/private`, { headers: { authorization: `Bearer ${token}` } });
      expect(await ok.json()).toEqual({ user: userId });
      const refused = await fetch(`${base}/private`);
      expect(refused.status).toBe(401);
      expect(await refused.json()).toEqual({ detail: 'no access token' });
      const foreign = await fetch(`${base}/private`, { headers: { authorization: `Bearer ${(await tokenFor(other)).token}` } });
      expect(foreign.status).toBe(401);
    } finally {
      listening.close();
    }
  });

  it('39 server sdk: a Fastify preHandler sets request.auth or answers 401 {detail}', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const web = Fastify();
    web.get('/private', { preHandler: fastifyAuth(verifier) }, async (request) => ({ user: (request as unknown as { auth: AccessClaims }).auth.sub }));
    web.get('/maybe', { preHandler: fastifyAuth(verifier, { optional: true }) }, async (request) => ({ user: (request as unknown as { auth?: AccessClaims }).auth?.sub ?? null }));
    try {
      const { token, userId } = await tokenFor(app);
      const ok = await web.inject({ url: '/private', headers: { cookie: `__session=${token}` } });
      expect(ok.json()).toEqual({ user: userId });
      const refused = await web.inject({ url: '/private', headers: { authorization: 'Bearer not-a-token' } });
      expect(refused.statusCode).toBe(401);
      expect(refused.json()).toEqual({ detail: 'the access token is not valid for this app' });
      expect((await web.inject({ url: '/maybe' })).json()).toEqual({ user: null });
    } finally {
      await web.close();
    }
  });
});

describe('39 @gatehouse/server: the admin client', () => {
  it('39 server sdk: users, sign-in tokens and session revocation, typed', async () => {
    const admin = createAdminClient({ baseUrl: server.url, secretKey: app.secret_key });
    const email = `admin.${Date.now().toString(36)}@example.com`;
    const user = await admin.users.create({ email });
    expect(user.email).toBe(email);
    expect((await admin.users.list({ email })).users.map((u) => u.id)).toEqual([user.id]);
    expect((await admin.users.get(user.id)).email).toBe(email);
    // Issue 49: the metadata typed as JSON objects, written whole.
    const updated = await admin.users.update(user.id, { public_metadata: { role: 'admin' }, private_metadata: { plan: 'pro' } });
    const role: unknown = updated.public_metadata.role;
    expect(role).toBe('admin');
    expect((await admin.users.get(user.id)).private_metadata).toEqual({ plan: 'pro' });
    const { token } = await admin.signInTokens.create({ user_id: user.id });
    const claims = await createVerifier({ baseUrl: server.url, appId: app.app_id }).verify(token);
    expect(await admin.sessions.revoke(claims.sid)).toEqual({ status: 'revoked' });
    const me = await api(server, 'GET', '/v1/me', { publishableKey: app.publishable_key, bearer: token });
    expect(me.status).toBe(401);
  });

  it('39 server sdk: errors are GatehouseError with status, code, detail and request id', async () => {
    const admin = createAdminClient({ baseUrl: server.url, secretKey: app.secret_key });
    const error = await admin.users.get('00000000-0000-4000-8000-000000000000').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatehouseError);
    expect(error).toMatchObject({ status: 404, code: 'not_found', detail: expect.any(String), requestId: expect.any(String) });
    const wrongKey = createAdminClient({ baseUrl: server.url, secretKey: 'sk_wrong' });
    await expect(wrongKey.billing.get()).rejects.toMatchObject({ status: 401 });
  });

  it('39 server sdk: tables, buckets and billing', async () => {
    const admin = createAdminClient({ baseUrl: server.url, secretKey: app.secret_key });
    const table = await admin.tables.create({ name: `sdk_${Date.now().toString(36)}`, columns: [{ name: 'title', type: 'text' }] });
    const row = await admin.tables.insertRow(table.table_id, { data: { title: 'hello' } });
    expect((await admin.tables.query(table.table_id, { filter: { field: 'title', op: 'eq', value: 'hello' } })).rows.map((r) => r.row_id)).toEqual([row.row_id]);
    const bucket = await admin.buckets.create({ name: `sdk-${Date.now().toString(36)}` });
    expect((await admin.buckets.storage()).buckets.map((b) => b.bucket_id)).toContain(bucket.bucket_id);
    expect((await admin.billing.get()).tenant_id).toBe(app.tenant_id);
  });
});
