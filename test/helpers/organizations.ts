import { expect } from 'vitest';
import { api, type TestApp } from './fixtures.js';
import type { TestServer } from './server.js';

// Users and organisations for the organisation tests (docs/organizations.md): a user made by the secret
// key with a verified email and signed in by a sign-in token.

let counter = 0;
export const orgEmail = (name = 'org') => `${name}.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;

export interface OrgUser {
  id: string;
  email: string;
  token: string;
  refreshToken: string;
}

/** A verified user of `app`, signed in. */
export async function orgUser(server: TestServer, app: TestApp, email = orgEmail(), verified = true): Promise<OrgUser> {
  const created = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  const id = created.body.id as string;
  if (verified) expect((await api(server, 'PATCH', `/v1/users/${id}`, { bearer: app.secret_key, body: { email_verified: true } })).status).toBe(200);
  const session = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: id } });
  expect(session.status).toBe(200);
  return { id, email, token: session.body.token as string, refreshToken: session.body.refresh_token as string };
}

/** A request as the signed-in user (Publishable + Session). */
export const asUser = (server: TestServer, app: TestApp, user: { token: string }) => (method: string, path: string, body?: unknown) =>
  api(server, method, path, { publishableKey: app.publishable_key, bearer: user.token, body });

/** A request with the app's secret key. */
export const asServer = (server: TestServer, app: TestApp) => (method: string, path: string, body?: unknown) => api(server, method, path, { bearer: app.secret_key, body });

/** An organisation `owner` creates; answers its id. */
export async function orgOf(server: TestServer, app: TestApp, owner: OrgUser, name = 'Acme'): Promise<string> {
  const created = await asUser(server, app, owner)('POST', '/v1/organizations', { name });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.organization_id as string;
}

/** A new access token of `user` with `orgId` active (null: none). */
export async function activeToken(server: TestServer, app: TestApp, user: OrgUser, orgId: string | null): Promise<string> {
  const res = await api(server, 'POST', '/v1/sessions/active_organization', { publishableKey: app.publishable_key, bearer: user.token, body: { organization_id: orgId } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.access_token as string;
}

/** The claims of a JWT (unverified: the tests read what a client would). */
export const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as Record<string, unknown>;
