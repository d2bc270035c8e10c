import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../helpers/fixtures.js';
import { createApp, createBucket, getObject, objectPath, putObject, random, rawRequest, sessionUser, startObjectServer, storage, STORES, type ObjectEnv } from '../helpers/objects.js';

// docs/api.md and docs/storage.md: who reaches which object (sessions their own, the secret key all, another
// app nothing), and what an interrupted upload or a bucket deletion leaves behind. On both blob stores.

describe.each(STORES)('contract 11 access and clean-up on the %s store', (kind) => {
  let env: ObjectEnv;
  let app: TestApp;
  let other: TestApp;

  beforeAll(async () => {
    env = await startObjectServer(kind);
    app = await createApp(env.server);
    other = await createApp(env.server, { tenantId: app.tenant_id, name: 'Other' });
  });
  afterAll(async () => {
    await env?.stop();
  });

  const as = (user: { token: string }) => ({ bearer: user.token, publishableKey: app.publishable_key });

  it('session users write and read only their own objects; another user_id → 403; two users may each hold a.txt', async () => {
    const { bucket_id } = await createBucket(env.server, app);
    const alice = await sessionUser(env.server, app);
    const bob = await sessionUser(env.server, app);
    const put = await putObject(env.server, app, bucket_id, 'a.txt', Buffer.from('alice'), { ...as(alice), contentType: 'text/plain' });
    expect(put.status).toBe(200);
    expect(put.json.user_id).toBe(alice.userId);
    expect((await putObject(env.server, app, bucket_id, 'a.txt', Buffer.from('bob'), as(bob))).status).toBe(200);

    const read = (user: { token: string }, query = '') => rawRequest(env.server, 'GET', objectPath(bucket_id, 'a.txt', query), as(user));
    expect((await read(alice)).body.toString()).toBe('alice');
    expect((await read(bob)).body.toString()).toBe('bob');
    expect((await read(alice, `?user_id=${bob.userId}`)).status).toBe(403);
    expect((await putObject(env.server, app, bucket_id, 'x', Buffer.from('x'), { ...as(alice), query: `?user_id=${bob.userId}` })).status).toBe(403);
    expect((await rawRequest(env.server, 'DELETE', objectPath(bucket_id, 'a.txt', `?user_id=${bob.userId}`), as(alice))).status).toBe(403);
    const list = await api(env.server, 'GET', `/v1/buckets/${bucket_id}/objects`, as(alice));
    expect(list.body.objects.map((o: { user_id: string }) => o.user_id)).toEqual([alice.userId]);
    expect((await api(env.server, 'GET', `/v1/buckets/${bucket_id}/objects?user_id=${bob.userId}`, as(alice))).status).toBe(403);

    // The secret key reaches every user's object by user_id, and lists them all.
    expect((await getObject(env.server, app, bucket_id, 'a.txt', {}, `?user_id=${bob.userId}`)).body.toString()).toBe('bob');
    expect((await getObject(env.server, app, bucket_id, 'a.txt')).status).toBe(404); // no owner-less a.txt
    const all = await api(env.server, 'GET', `/v1/buckets/${bucket_id}/objects`, { bearer: app.secret_key });
    expect(all.body.objects).toHaveLength(2);
    const bobs = await api(env.server, 'GET', `/v1/buckets/${bucket_id}/objects?user_id=${bob.userId}`, { bearer: app.secret_key });
    expect(bobs.body.objects.map((o: { user_id: string }) => o.user_id)).toEqual([bob.userId]);
  });

  it('sessions read buckets and storage but cannot create, patch or delete buckets (403); no credentials → 401', async () => {
    const { bucket_id } = await createBucket(env.server, app);
    const alice = await sessionUser(env.server, app);
    expect((await api(env.server, 'GET', '/v1/buckets', as(alice))).status).toBe(200);
    expect((await api(env.server, 'GET', `/v1/buckets/${bucket_id}`, as(alice))).status).toBe(200);
    expect((await api(env.server, 'GET', '/v1/buckets/storage', as(alice))).status).toBe(200);
    expect((await api(env.server, 'POST', '/v1/buckets', { ...as(alice), body: { name: 'nope' } })).status).toBe(403);
    expect((await api(env.server, 'PATCH', `/v1/buckets/${bucket_id}`, { ...as(alice), body: { max_size_bytes: 1 } })).status).toBe(403);
    expect((await api(env.server, 'DELETE', `/v1/buckets/${bucket_id}`, as(alice))).status).toBe(403);
    expect((await api(env.server, 'GET', '/v1/buckets')).status).toBe(401);
    expect((await rawRequest(env.server, 'PUT', objectPath(bucket_id, 'k'), { body: Buffer.from('x') })).status).toBe(401);
    expect((await rawRequest(env.server, 'GET', objectPath(bucket_id, 'k'), { publishableKey: app.publishable_key })).status).toBe(401);
  });

  it("another app's bucket, object and user ids → 404 on every route, and nothing of it changes", async () => {
    const { bucket_id } = await createBucket(env.server, app);
    await putObject(env.server, app, bucket_id, 'secret.txt', Buffer.from('mine'));
    const user = await sessionUser(env.server, app);
    const key = other.secret_key;
    expect((await api(env.server, 'GET', `/v1/buckets/${bucket_id}`, { bearer: key })).status).toBe(404);
    expect((await api(env.server, 'PATCH', `/v1/buckets/${bucket_id}`, { bearer: key, body: { max_size_bytes: 1 } })).status).toBe(404);
    expect((await api(env.server, 'DELETE', `/v1/buckets/${bucket_id}`, { bearer: key })).status).toBe(404);
    expect((await api(env.server, 'GET', `/v1/buckets/${bucket_id}/objects`, { bearer: key })).status).toBe(404);
    expect((await rawRequest(env.server, 'GET', objectPath(bucket_id, 'secret.txt'), { bearer: key })).status).toBe(404);
    expect((await rawRequest(env.server, 'DELETE', objectPath(bucket_id, 'secret.txt'), { bearer: key })).status).toBe(404);
    expect((await putObject(env.server, other, bucket_id, 'planted', Buffer.from('x'))).status).toBe(404);
    expect((await api(env.server, 'GET', '/v1/buckets', { bearer: key })).body.buckets).toEqual([]);
    // A user of this app is unknown to the other app's bucket too.
    const theirs = await createBucket(env.server, other);
    expect((await putObject(env.server, other, theirs.bucket_id, 'k', Buffer.from('x'), { query: `?user_id=${user.userId}` })).status).toBe(404);
    // A session of this app with the other app's publishable key is no session there.
    expect((await api(env.server, 'GET', `/v1/buckets/${theirs.bucket_id}`, { bearer: user.token, publishableKey: other.publishable_key })).status).toBe(401);
    expect((await getObject(env.server, app, bucket_id, 'secret.txt')).body.toString()).toBe('mine');
    expect((await api(env.server, 'GET', `/v1/buckets/${bucket_id}`, { bearer: app.secret_key })).body.max_size_bytes).toBeNull();
  });

  it('an upload cut off mid-body (socket destroyed) leaves no object, no blob and no usage', async () => {
    const lone = await createApp(env.server, { tenantId: app.tenant_id, name: 'Cut' });
    const { bucket_id } = await createBucket(env.server, lone);
    const socket = connect(env.server.port, '127.0.0.1');
    await new Promise((resolve) => socket.once('connect', resolve));
    socket.write(
      `PUT ${objectPath(bucket_id, 'cut.bin')} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${lone.secret_key}\r\n` +
        `Content-Type: application/octet-stream\r\nContent-Length: ${4 * 1024 * 1024}\r\n\r\n`,
    );
    socket.write(random(512 * 1024));
    // The server has reserved the 4 MiB and is streaming when the client vanishes.
    await expect.poll(async () => (await storage(env.server, lone)).used_bytes, { timeout: 10_000 }).toBe(4 * 1024 * 1024);
    socket.destroy();
    await expect.poll(async () => (await storage(env.server, lone)).used_bytes, { timeout: 15_000 }).toBe(0);
    await expect.poll(() => env.blobCount(lone.app_id), { timeout: 15_000 }).toBe(0);
    expect((await getObject(env.server, lone, bucket_id, 'cut.bin')).status).toBe(404);
    const list = await api(env.server, 'GET', `/v1/buckets/${bucket_id}/objects`, { bearer: lone.secret_key });
    expect(list.body.objects).toEqual([]);
    expect((await api(env.server, 'GET', `/v1/buckets/${bucket_id}`, { bearer: lone.secret_key })).body).toMatchObject({ used_bytes: 0, object_count: 0 });
  });

  it('deleting a bucket deletes its objects, their blobs in the store and their usage', async () => {
    const lone = await createApp(env.server, { tenantId: app.tenant_id, name: 'Deleting' });
    const { bucket_id } = await createBucket(env.server, lone);
    const keep = await createBucket(env.server, lone, 'keep');
    const user = await sessionUser(env.server, lone);
    for (const key of ['a', 'b/c', 'd']) expect((await putObject(env.server, lone, bucket_id, key, random(1000))).status).toBe(200);
    expect((await putObject(env.server, lone, bucket_id, 'u', random(1000), { query: `?user_id=${user.userId}` })).status).toBe(200);
    expect((await putObject(env.server, lone, keep.bucket_id, 'k', random(10))).status).toBe(200);
    expect(await env.blobCount(lone.app_id)).toBe(5);
    const del = await api(env.server, 'DELETE', `/v1/buckets/${bucket_id}`, { bearer: lone.secret_key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ status: 'deleted' });
    expect(await env.blobCount(lone.app_id)).toBe(1);
    expect(await storage(env.server, lone)).toMatchObject({ used_bytes: 10, buckets: [{ bucket_id: keep.bucket_id, used_bytes: 10, object_count: 1 }] });
    expect((await api(env.server, 'GET', `/v1/buckets/${bucket_id}`, { bearer: lone.secret_key })).status).toBe(404);
    expect((await getObject(env.server, lone, bucket_id, 'a')).status).toBe(404);
    // The name is free again, and the new bucket starts empty.
    const again = await createBucket(env.server, lone, (await api(env.server, 'GET', '/v1/buckets', { bearer: lone.secret_key })).body.buckets.length ? 'fresh' : 'fresh');
    expect((await api(env.server, 'GET', `/v1/buckets/${again.bucket_id}/objects`, { bearer: lone.secret_key })).body.objects).toEqual([]);
  });
});

describe.each(STORES)('a failing %s blob store', (kind) => {
  let env: ObjectEnv;
  afterAll(async () => {
    await env?.stop();
  });

  it('a blob gone from the store is 404; uploads and downloads on a failing store answer 503 with Retry-After, and a failed upload stores and counts nothing', async () => {
    env = await startObjectServer(kind);
    const lost = await createApp(env.server);
    const lostBucket = await createBucket(env.server, lost);
    expect((await putObject(env.server, lost, lostBucket.bucket_id, 'gone', random(10))).status).toBe(200);
    await env.removeBlobs(lost.app_id);
    const gone = await getObject(env.server, lost, lostBucket.bucket_id, 'gone');
    expect(gone.status).toBe(404);
    expect(gone.json).toEqual({ detail: 'object not found', code: 'not_found' });

    const app = await createApp(env.server, { tenantId: lost.tenant_id });
    const { bucket_id } = await createBucket(env.server, app);
    expect((await putObject(env.server, app, bucket_id, 'kept', random(700))).status).toBe(200);

    await env.breakBlobStore();
    for (const key of ['new', 'kept']) {
      const put = await putObject(env.server, app, bucket_id, key, random(3000));
      expect(put.status).toBe(503);
      expect(put.headers.get('retry-after')).toBe('5');
      expect(put.json).toEqual({ detail: expect.stringContaining('object store'), code: expect.any(String) });
    }
    const get = await getObject(env.server, app, bucket_id, 'kept');
    expect(get.status).toBe(503);
    expect(get.headers.get('retry-after')).toBe('5');
    expect(get.json).toEqual({ detail: expect.stringContaining('object store'), code: expect.any(String) });

    // The failed writes gave their reservations back; the object that was there is still the one listed.
    expect(await storage(env.server, app)).toMatchObject({ used_bytes: 700, buckets: [{ bucket_id, used_bytes: 700, object_count: 1 }] });
    const list = await api(env.server, 'GET', `/v1/buckets/${bucket_id}/objects`, { bearer: app.secret_key });
    expect(list.body.objects).toEqual([expect.objectContaining({ key: 'kept', size_bytes: 700 })]);
    // Another app's request for this bucket is still 404, store or no store.
    const other = await createApp(env.server, { tenantId: app.tenant_id, name: 'Other' });
    expect((await putObject(env.server, other, bucket_id, 'x', random(10))).status).toBe(404);
  });
});
