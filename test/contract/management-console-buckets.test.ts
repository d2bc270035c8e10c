import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedAuthServer, type AuthEnv } from '../helpers/accounts.js';
import { api } from '../helpers/fixtures.js';
import { addMember, ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy, type ConsoleUser } from '../helpers/console.js';

// Contract 16 "App data with a Console credential", on the bucket and object routes the console's Buckets
// pages call (docs/console.md): a member's console session with X-App-Id creates and deletes a bucket, puts,
// lists, reads and deletes an object, as the secret key does; a viewer reads only; another tenant's member
// finds nothing (404).

let env: AuthEnv;
let admin: ConsoleUser;
let viewer: ConsoleUser;
let stranger: ConsoleUser;
let app: { app_id: string; secret_key: string };

beforeAll(async () => {
  // The worker's shared server of this environment (test/suite.mjs SHARED): this file's tenants, apps and console users are its own.
  env = await sharedAuthServer({ ADMIN_TOKEN });
  const console_ = await consoleApp(env.server);
  const owner = await consoleUser(env, console_, 'owner');
  admin = await consoleUser(env, console_, 'admin');
  viewer = await consoleUser(env, console_, 'viewer');
  stranger = await consoleUser(env, console_, 'stranger');
  const tenantId = await tenantOwnedBy(env, owner, 'Storage');
  await addMember(env, tenantId, admin, 'admin');
  await addMember(env, tenantId, viewer, 'viewer');
  await tenantOwnedBy(env, stranger, 'Elsewhere');
  const created = await manage(env.server, admin.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Files' });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  app = created.body;
}, 180_000);
afterAll(async () => {
  await env?.stop();
});

/** A raw object request with a Console credential and X-App-Id (or the secret key without it). */
function object(method: string, credential: string, bucketId: string, key: string, body?: string, type?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${credential}`, ...(credential === app.secret_key ? {} : { 'x-app-id': app.app_id }), ...(type ? { 'content-type': type } : {}) };
  return fetch(`${env.server.url}/v1/buckets/${bucketId}/objects/${key}`, { method, headers, body });
}

describe('buckets and objects with a Console credential', () => {
  it('an admin creates a bucket, puts, lists, reads and deletes an object and deletes the bucket; the secret key sees the same', async () => {
    const bucket = await manage(env.server, admin.token, 'POST', '/v1/buckets', { name: 'uploads' }, app.app_id);
    expect(bucket.status, JSON.stringify(bucket.body)).toBe(201);
    const id = bucket.body.bucket_id;
    const text = '%PDF-1.7 not really';
    const bytes = Buffer.from(text);
    const put = await object('PUT', admin.token, id, 'docs/a.pdf', text, 'application/pdf');
    expect(put.status).toBe(200);
    expect(await put.json()).toMatchObject({ key: 'docs/a.pdf', size_bytes: bytes.length, content_type: 'application/pdf', user_id: null });
    const listed = await manage(env.server, admin.token, 'GET', `/v1/buckets/${id}/objects`, undefined, app.app_id);
    expect(listed.body.objects.map((o: { key: string }) => o.key)).toEqual(['docs/a.pdf']);
    const bySecret = await object('GET', app.secret_key, id, 'docs/a.pdf');
    expect(Buffer.from(await bySecret.arrayBuffer()).equals(bytes)).toBe(true);
    const byAdmin = await object('GET', admin.token, id, 'docs/a.pdf');
    expect(byAdmin.headers.get('content-type')).toBe('application/pdf');
    expect(Buffer.from(await byAdmin.arrayBuffer()).equals(bytes)).toBe(true);

    expect((await object('DELETE', admin.token, id, 'docs/a.pdf')).status).toBe(200);
    expect((await object('GET', app.secret_key, id, 'docs/a.pdf')).status).toBe(404);
    expect((await manage(env.server, admin.token, 'DELETE', `/v1/buckets/${id}`, undefined, app.app_id)).status).toBe(200);
    expect((await api(env.server, 'GET', `/v1/buckets/${id}`, { bearer: app.secret_key })).status).toBe(404);
  });

  it("a viewer lists and reads but cannot put or delete (403, nothing changes); another tenant's member gets 404", async () => {
    const bucket = await manage(env.server, admin.token, 'POST', '/v1/buckets', { name: 'kept' }, app.app_id);
    const id = bucket.body.bucket_id;
    expect((await object('PUT', admin.token, id, 'a.txt', 'kept', 'text/plain')).status).toBe(200);

    expect((await manage(env.server, viewer.token, 'GET', `/v1/buckets/${id}/objects`, undefined, app.app_id)).body.objects).toHaveLength(1);
    expect(await (await object('GET', viewer.token, id, 'a.txt')).text()).toBe('kept');
    for (const refused of [object('PUT', viewer.token, id, 'a.txt', 'changed', 'text/plain'), object('DELETE', viewer.token, id, 'a.txt')]) expect((await refused).status).toBe(403);
    expect((await manage(env.server, viewer.token, 'DELETE', `/v1/buckets/${id}`, undefined, app.app_id)).status).toBe(403);

    for (const res of [
      await manage(env.server, stranger.token, 'GET', `/v1/buckets/${id}/objects`, undefined, app.app_id),
      await manage(env.server, stranger.token, 'DELETE', `/v1/buckets/${id}`, undefined, app.app_id),
    ])
      expect(res.status).toBe(404);
    expect((await object('PUT', stranger.token, id, 'a.txt', 'theirs', 'text/plain')).status).toBe(404);
    expect((await object('GET', stranger.token, id, 'a.txt')).status).toBe(404);

    expect(await (await object('GET', app.secret_key, id, 'a.txt')).text()).toBe('kept');
    expect((await api(env.server, 'GET', `/v1/buckets/${id}`, { bearer: app.secret_key })).body).toMatchObject({ name: 'kept', object_count: 1 });
  });
});
