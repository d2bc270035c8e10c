import { expect } from 'vitest';
import { verifiedUser, type AuthEnv } from './accounts.js';
import { api, type JsonResponse, type TestApp } from './fixtures.js';
import { built } from './server-deps.js';
import type { TestServer } from './server.js';

// The Management API's fixtures (docs/management.md): the console app as `gatehouse console info` names it,
// console users signed up through it, and requests with a Console credential.

export const ADMIN_TOKEN = 'test-admin-token-0123456789abcdefghijklmnop';

export interface ConsoleUser {
  email: string;
  userId: string;
  token: string;
}

type ConsoleAppModule = typeof import('../../src/services/management/console-app.js');

/**
 * The console app, shaped as the fixtures' apps (its publishable key is all a sign-up needs): what
 * `gatehouse console info` prints, by the same service call on the server's database in the test process
 * (TestServer.deps, as fixtures.ts createApp), without a CLI process. management-tenants.test.ts runs the
 * real command.
 */
export async function consoleApp(server: TestServer): Promise<TestApp> {
  const { cliApps } = await built();
  const module = (await import(/* @vite-ignore */ new URL('../../dist/src/services/management/console-app.js', import.meta.url).href)) as ConsoleAppModule;
  const deps = await server.deps();
  const info = await module.consoleInfo(cliApps.appsDeps(deps), deps.config.publicBaseUrl);
  return { app_id: info.app_id, publishable_key: info.publishable_key } as TestApp;
}

/** A console user: signed up and verified through the console app, with a live session. */
export async function consoleUser(env: AuthEnv, app: TestApp, name = 'member'): Promise<ConsoleUser> {
  const email = `${name}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}@example.com`;
  const user = await verifiedUser(env, app, email);
  mailsSeen.set(email, 1);
  return { email, userId: user.userId, token: user.tokens.access_token as string };
}

/** A Management API request with a Console credential; `appId` sends X-App-Id. */
export function manage<T = any>(server: TestServer, credential: string, method: string, path: string, body?: unknown, appId?: string): Promise<JsonResponse<T>> {
  return api<T>(server, method, path, { bearer: credential, body, headers: appId ? { 'x-app-id': appId } : {} });
}

/** A tenant made by the operator, with `owner` as its owner (invited and accepted through the API). */
export async function tenantOwnedBy(env: AuthEnv, owner: ConsoleUser, name = 'Acme'): Promise<string> {
  const tenant = await manage(env.server, ADMIN_TOKEN, 'POST', '/v1/tenants', { name });
  expect(tenant.status, JSON.stringify(tenant.body)).toBe(201);
  await addMember(env, tenant.body.tenant_id, owner, 'owner');
  return tenant.body.tenant_id as string;
}

/** Invites `user` with `role` (as the operator) and accepts it with their console session. */
export async function addMember(env: AuthEnv, tenantId: string, user: ConsoleUser, role: 'owner' | 'admin' | 'viewer'): Promise<void> {
  const invited = await manage(env.server, ADMIN_TOKEN, 'POST', `/v1/tenants/${tenantId}/invitations`, { email: user.email, role });
  expect(invited.status, JSON.stringify(invited.body)).toBe(201);
  const token = await invitationToken(env, user.email);
  const accepted = await manage(env.server, user.token, 'POST', '/v1/tenant_invitations/accept', { token });
  expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
}

/** Emails each address has had (a console user's first is its verification code). */
const mailsSeen = new Map<string, number>();

/** The token of the next invitation emailed to `email` (the link's `token`). */
export async function invitationToken(env: AuthEnv, email: string): Promise<string> {
  const count = (mailsSeen.get(email) ?? 0) + 1;
  mailsSeen.set(email, count);
  const mail = await env.sink.waitFor(email, { count });
  const link = /https?:\/\/\S+\/console\/accept\?token=(\S+)/.exec(mail.text);
  if (!link) throw new Error(`email #${count} to ${email} holds no invitation link:\n${mail.text}`);
  return link[1]!;
}
