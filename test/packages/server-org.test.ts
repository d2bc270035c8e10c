import { createVerifier, expressAuth, fastifyAuth, unmetRequirement } from '@gatehouse/server';
import express from 'express';
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { sharedServer, type TestServer } from '../helpers/server.js';

// Issues 48 and 52: @gatehouse/server's organisation claims (org_id, org_slug, org_role, org_permissions) as the
// server signs them, and the middlewares' `orgRole` and `permission` rules (403 with a code) on Express and Fastify.

let server: TestServer;
let app: TestApp;
let org: { organization_id: string; slug: string };
/** Tokens: an owner's and a custom role's with an active organisation, and one of a session without any. */
const tokens: Record<'owner' | 'billing' | 'none', string> = { owner: '', billing: '', none: '' };

async function signedIn(email: string): Promise<{ userId: string; token: string }> {
  const user = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } });
  expect(user.status).toBe(201);
  const minted = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: user.body.id } });
  expect(minted.status).toBe(200);
  return { userId: user.body.id as string, token: minted.body.token as string };
}

async function activate(token: string): Promise<string> {
  const answer = await api(server, 'POST', '/v1/sessions/active_organization', { publishableKey: app.publishable_key, bearer: token, body: { organization_id: org.organization_id } });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  return answer.body.access_token as string;
}

beforeAll(async () => {
  // The worker's shared server of the default environment (test/suite.mjs SHARED): this file's apps and users are its own.
  server = await sharedServer();
  app = await createApp(server);
  const stamp = Date.now().toString(36);
  const owner = await signedIn(`org-owner.${stamp}@example.com`);
  const created = await api(server, 'POST', '/v1/organizations', { publishableKey: app.publishable_key, bearer: owner.token, body: { name: 'Acme', slug: `acme-${stamp}` } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  org = created.body;
  const role = await api(server, 'POST', '/v1/organization_roles', { bearer: app.secret_key, body: { key: 'billing', name: 'Billing', permissions: ['invoices:read'] } });
  expect(role.status, JSON.stringify(role.body)).toBe(201);
  const billing = await signedIn(`org-billing.${stamp}@example.com`);
  const added = await api(server, 'POST', `/v1/organizations/${org.organization_id}/members`, { bearer: app.secret_key, body: { user_id: billing.userId, role: 'billing' } });
  expect(added.status, JSON.stringify(added.body)).toBe(201);
  tokens.owner = await activate(owner.token);
  tokens.billing = await activate(billing.token);
  tokens.none = (await signedIn(`org-none.${stamp}@example.com`)).token;
});

afterAll(async () => {
  await server?.stop();
});

describe('52 @gatehouse/server: organisation claims and rules', () => {
  it('52 server sdk: the claims carry the active organisation as the server signed it', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    expect(await verifier.verify(tokens.owner)).toMatchObject({
      org_id: org.organization_id,
      org_slug: org.slug,
      org_role: 'owner',
      org_permissions: expect.arrayContaining(['org:read', 'org:update', 'org:delete']),
    });
    const billing = await verifier.verify(tokens.billing);
    expect(billing).toMatchObject({ org_role: 'billing' });
    expect([...billing.org_permissions!].sort()).toEqual(['invoices:read', 'org:read']);
    const none = await verifier.verify(tokens.none);
    expect(none.org_id).toBeUndefined();
    expect(unmetRequirement(none, { orgRole: 'owner' })).toMatchObject({ code: 'organization_required' });
    expect(unmetRequirement(billing, { permission: 'invoices:read' })).toBeUndefined();
  });

  it('52 server sdk: Express orgRole and permission answer 403 {detail, code} for the wrong role, a missing permission or no organisation', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const web = express();
    web.delete('/org', expressAuth(verifier, { orgRole: ['owner', 'admin'] }), (req, res) => res.json({ org: req.auth!.org_id }));
    web.get('/invoices', expressAuth(verifier, { permission: 'invoices:read' }), (req, res) => res.json({ role: req.auth!.org_role }));
    const listening = web.listen(0, '127.0.0.1');
    await new Promise((resolve) => listening.once('listening', resolve));
    try {
      const base = `http://127.0.0.1:${(listening.address() as AddressInfo).port}`;
      const call = async (method: string, path: string, token: string) => {
        const response = await fetch(base + path, { method, headers: { authorization: `Bearer ${token}` } });
        return { status: response.status, body: await response.json() };
      };
      expect(await call('DELETE', '/org', tokens.owner)).toEqual({ status: 200, body: { org: org.organization_id } });
      expect(await call('DELETE', '/org', tokens.billing)).toMatchObject({ status: 403, body: { code: 'org_role_required' } });
      expect(await call('DELETE', '/org', tokens.none)).toMatchObject({ status: 403, body: { code: 'organization_required' } });
      expect(await call('GET', '/invoices', tokens.billing)).toEqual({ status: 200, body: { role: 'billing' } });
      const owner = await call('GET', '/invoices', tokens.owner);
      expect(owner).toMatchObject({ status: 403, body: { code: 'permission_required' } });
      expect(owner.body.detail).toContain('invoices:read');
      expect((await fetch(`${base}/invoices`)).status).toBe(401);
    } finally {
      listening.close();
    }
  });

  it('52 server sdk: the Fastify preHandler applies the same rules', async () => {
    const verifier = createVerifier({ baseUrl: server.url, appId: app.app_id });
    const web = Fastify();
    web.get('/members', { preHandler: fastifyAuth(verifier, { permission: ['org:read', 'org:members:manage'] }) }, async (request) => ({ org: request.auth!.org_slug }));
    web.get('/billing', { preHandler: fastifyAuth(verifier, { orgRole: 'billing' }) }, async (request) => ({ role: request.auth!.org_role }));
    try {
      const call = async (url: string, token: string) => {
        const response = await web.inject({ url, headers: { cookie: `__session=${token}` } });
        return { status: response.statusCode, body: response.json() };
      };
      expect(await call('/members', tokens.owner)).toEqual({ status: 200, body: { org: org.slug } });
      expect(await call('/members', tokens.billing)).toMatchObject({ status: 403, body: { code: 'permission_required' } });
      expect(await call('/billing', tokens.billing)).toEqual({ status: 200, body: { role: 'billing' } });
      expect(await call('/billing', tokens.owner)).toMatchObject({ status: 403, body: { code: 'org_role_required' } });
      expect(await call('/billing', tokens.none)).toMatchObject({ status: 403, body: { code: 'organization_required' } });
    } finally {
      await web.close();
    }
  });
});
