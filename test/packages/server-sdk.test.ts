import { createAdminClient, createVerifier, claimsFromRequest, type AccessClaims, expressAuth, fastifyAuth, GatehouseError, InvalidTokenError } from '@gatehouse/server';
import express from 'express';
import Fastify from 'fastify';
import { serve } from '@hono/node-server';
import { Hono } from 'hono';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cliJson, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { enrollTotp } from '../helpers/mfa.js';
import { sharedServer, type TestServer } from '../helpers/server.js';

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

/** A user whose email is verified (a second factor needs it), signed in by a sign-in token (aal1), and the aal2 token after enrolling TOTP. */
async function aal2TokensFor(target: TestApp) {
  const signedIn = await tokenFor(target);
  const verified = await api(server, 'PATCH', `/v1/users/${signedIn.userId}`, { bearer: target.secret_key, body: { email_verified: true } });
  expect(verified.status).toBe(200);
  return { ...signedIn, aal2Token: (await enrollTotp(server, target, signedIn.token)).accessToken };
}

beforeAll(async () => {
  server = await sharedServer();
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
    web.get('/private', expressAuth(verifier), (req, res) => res.json({ user: req.auth!.sub }));
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
    web.get('/private', { preHandler: fastifyAuth(verifier) }, async (request) => ({ user: request.auth!.sub }));
    web.get('/maybe', { preHandler: fastifyAuth(verifier, { optional: true }) }, async (request) => ({ user: request.auth?.sub ?? null }));
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

describe('48 @gatehouse/server: assurance level and Web-standard requests', () => {
  it('48 server sdk: the claims carry amr, aal and auth_time as the server signed them', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const { token, aal2Token } = await aal2TokensFor(app);
    const claims = await verifier.verify(token);
    expect(claims).toMatchObject({ amr: ['token'], aal: 'aal1', auth_time: expect.any(Number) });
    const aal2 = await verifier.verify(aal2Token);
    expect(aal2.aal).toBe('aal2');
    expect(aal2.amr).toContain('otp');
    expect(aal2.auth_time).toBe(claims.auth_time);
  });

  it("48 server sdk: { aal: 'aal2' } answers an aal1 session 403 aal2_required and lets an aal2 one through (Express and Fastify)", async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const { token, userId, aal2Token } = await aal2TokensFor(app);
    const web = express();
    web.post('/payouts', expressAuth(verifier, { aal: 'aal2' }), (req, res) => res.json({ user: req.auth!.sub, aal: req.auth!.aal }));
    const listening = web.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    const fastify = Fastify();
    fastify.post('/payouts', { preHandler: fastifyAuth(verifier, { aal: 'aal2' }) }, async (request) => ({ user: request.auth!.sub, aal: request.auth!.aal }));
    try {
      const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
      const express1 = await fetch(`${base}/payouts`, { method: 'POST', headers: { authorization: `Bearer ${token}` } });
      expect(express1.status).toBe(403);
      expect(await express1.json()).toMatchObject({ detail: expect.any(String), code: 'aal2_required' });
      const express2 = await fetch(`${base}/payouts`, { method: 'POST', headers: { authorization: `Bearer ${aal2Token}` } });
      expect(await express2.json()).toEqual({ user: userId, aal: 'aal2' });
      expect((await fetch(`${base}/payouts`, { method: 'POST' })).status).toBe(401);

      const fastify1 = await fastify.inject({ method: 'POST', url: '/payouts', headers: { authorization: `Bearer ${token}` } });
      expect(fastify1.statusCode).toBe(403);
      expect(fastify1.json()).toMatchObject({ detail: expect.any(String), code: 'aal2_required' });
      const fastify2 = await fastify.inject({ method: 'POST', url: '/payouts', headers: { cookie: `__session=${aal2Token}` } });
      expect(fastify2.json()).toEqual({ user: userId, aal: 'aal2' });
      expect((await fastify.inject({ method: 'POST', url: '/payouts', headers: { authorization: 'Bearer not-a-token' } })).statusCode).toBe(401);
    } finally {
      listening.close();
      await fastify.close();
    }
  });

  it('48 server sdk: verifier.verifyRequest reads a Web-standard Request (Bearer, else __session) or throws InvalidTokenError', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const { token, userId } = await tokenFor(app);
    // A route handler as Next.js, Hono (c.req.raw), Bun.serve and Deno.serve call it: a Request in, a Response out.
    const handler = async (request: Request): Promise<Response> => {
      try {
        const claims = await verifier.verifyRequest(request);
        return Response.json({ user: claims.sub, aal: claims.aal });
      } catch (error) {
        if (error instanceof InvalidTokenError) return Response.json({ detail: error.message, code: error.code }, { status: 401 });
        throw error;
      }
    };
    const byHeader = await handler(new Request('https://api.example.com/notes', { headers: { authorization: `Bearer ${token}` } }));
    expect(await byHeader.json()).toEqual({ user: userId, aal: 'aal1' });
    const byCookie = await handler(new Request('https://api.example.com/notes', { headers: { cookie: `theme=dark; __session=${token}` } }));
    expect(await byCookie.json()).toEqual({ user: userId, aal: 'aal1' });
    const none = await handler(new Request('https://api.example.com/notes'));
    expect(none.status).toBe(401);
    expect(await none.json()).toEqual({ detail: 'no access token', code: 'missing' });
    const foreign = await handler(new Request('https://api.example.com/notes', { headers: { authorization: `Bearer ${(await tokenFor(other)).token}` } }));
    expect(await foreign.json()).toMatchObject({ code: 'invalid' });
  });
  it('48 server sdk: a Hono app on a real socket authenticates with verifyRequest(c.req.raw), Bearer or __session', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const api = new Hono<{ Variables: { auth: AccessClaims } }>();
    api.use('/api/*', async (c, next) => {
      try {
        c.set('auth', await verifier.verifyRequest(c.req.raw));
      } catch (error) {
        if (error instanceof InvalidTokenError) return c.json({ detail: error.message, code: error.code }, 401);
        throw error;
      }
      await next();
    });
    api.get('/api/notes', (c) => c.json({ user: c.get('auth').sub, aal: c.get('auth').aal }));
    const listening = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const started = serve({ fetch: api.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(started));
    });
    try {
      const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
      const { token, userId } = await tokenFor(app);
      const byHeader = await fetch(`${base}/api/notes`, { headers: { authorization: `Bearer ${token}` } });
      expect(await byHeader.json()).toEqual({ user: userId, aal: 'aal1' });
      const byCookie = await fetch(`${base}/api/notes`, { headers: { cookie: `__session=${token}` } });
      expect(await byCookie.json()).toEqual({ user: userId, aal: 'aal1' });
      const none = await fetch(`${base}/api/notes`);
      expect(none.status).toBe(401);
      expect(await none.json()).toEqual({ detail: 'no access token', code: 'missing' });
      const foreign = await fetch(`${base}/api/notes`, { headers: { authorization: `Bearer ${(await tokenFor(other)).token}` } });
      expect(foreign.status).toBe(401);
      expect(await foreign.json()).toMatchObject({ code: 'invalid' });
    } finally {
      await new Promise((resolve) => listening.close(resolve));
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

  it('39 server sdk: events, one and their per-day stats (issue 51)', async () => {
    const admin = createAdminClient({ baseUrl: server.url, secretKey: app.secret_key });
    const user = await admin.users.create({ email: `events.${Date.now().toString(36)}@example.com` });
    const [created] = (await admin.events.list({ user_id: user.id, type: 'user.created' })).events;
    expect(created).toMatchObject({ type: 'user.created', user_id: user.id });
    expect((await admin.events.get(created.event_id)).event_id).toBe(created.event_id);
    const day = created.occurred_at.slice(0, 10);
    const { days } = await admin.events.stats({ type: 'user.created', since: day, until: day });
    expect(days).toHaveLength(1);
    expect(days[0].date).toBe(day);
    expect(days[0].counts['user.created']).toBeGreaterThanOrEqual(1);
  });
});
