import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, cliJson, type TestApp } from '../helpers/fixtures.js';
import { createApp, createBucket, getObject, putObject, random, rawRequest, sessionUser, startObjectServer, storage, STORES, type ObjectEnv } from '../helpers/objects.js';

// docs/storage.md: the bucket total, per-user and per-app caps hold under concurrent uploads (usage
// is reserved by one conditional write), a refused write changes nothing, an overwrite counts only its
// difference. On both blob stores.

const statuses = (results: { status: number }[]) => results.map((r) => r.status).sort();

async function bucketOf(env: ObjectEnv, app: TestApp, bucketId: string) {
  const res = await api(env.server, 'GET', `/v1/buckets/${bucketId}`, { bearer: app.secret_key });
  expect(res.status).toBe(200);
  return res.body as { used_bytes: number; object_count: number };
}

describe.each(STORES)('contract 11 caps on the %s store', (kind) => {
  let env: ObjectEnv;
  let app: TestApp;

  beforeAll(async () => {
    env = await startObjectServer(kind);
    app = await createApp(env.server);
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('max_size_bytes: of 10 concurrent 3000-byte uploads into 10000 bytes exactly 3 succeed, the rest 413', async () => {
    const { bucket_id } = await createBucket(env.server, app, undefined, { max_size_bytes: 10_000 });
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => putObject(env.server, app, bucket_id, `race/${i}`, random(3000))));
    expect(statuses(results)).toEqual([200, 200, 200, 413, 413, 413, 413, 413, 413, 413]);
    expect(results.find((r) => r.status === 413)!.json).toEqual({ detail: expect.stringContaining('max_size_bytes'), code: expect.any(String) });
    expect(await bucketOf(env, app, bucket_id)).toMatchObject({ used_bytes: 9000, object_count: 3 });
    // The last 1000 bytes still fit; one more byte does not.
    expect((await putObject(env.server, app, bucket_id, 'fill', random(1000))).status).toBe(200);
    expect((await putObject(env.server, app, bucket_id, 'over', random(1))).status).toBe(413);
    expect((await getObject(env.server, app, bucket_id, 'over')).status).toBe(404);
  });

  it('each cap refuses from Content-Length before the body is read (only 64 KiB of the declared 8 MiB are sent)', async () => {
    const small = await createApp(env.server, { tenantId: app.tenant_id, args: ['--objects-limit-bytes', String(4 * 1024 * 1024)] });
    const total = await createBucket(env.server, app, undefined, { max_size_bytes: 10_000 });
    const perUser = await createBucket(env.server, app, undefined, { max_size_bytes_per_user: 10_000 });
    const ofSmall = await createBucket(env.server, small);
    const alice = await sessionUser(env.server, app);
    const cases = [
      { app, bucketId: total.bucket_id, auth: { bearer: app.secret_key }, detail: /max_size_bytes/ },
      { app, bucketId: perUser.bucket_id, auth: { bearer: alice.token, publishableKey: app.publishable_key }, detail: /per_user/ },
      { app: small, bucketId: ofSmall.bucket_id, auth: { bearer: small.secret_key }, detail: /storage|limit/ },
    ];
    for (const c of cases) {
      const res = await rawRequest(env.server, 'PUT', `/v1/buckets/${c.bucketId}/objects/early.bin`, {
        body: random(64 * 1024),
        declaredLength: 8 * 1024 * 1024,
        headers: { 'content-type': 'application/octet-stream' },
        ...c.auth,
      });
      expect(res.status).toBe(413);
      expect(res.json.detail).toMatch(c.detail);
      expect((await getObject(env.server, c.app, c.bucketId, 'early.bin')).status).toBe(404);
    }
  });

  it('max_size_bytes_per_user: 8 concurrent 1000-byte uploads of one user into 5000 → exactly 5; another user is not affected', async () => {
    const { bucket_id } = await createBucket(env.server, app, undefined, { max_size_bytes_per_user: 5000 });
    const alice = await sessionUser(env.server, app);
    const bob = await sessionUser(env.server, app);
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => putObject(env.server, app, bucket_id, `a/${i}`, random(1000), { bearer: alice.token, publishableKey: app.publishable_key })),
    );
    expect(statuses(results)).toEqual([200, 200, 200, 200, 200, 413, 413, 413]);
    expect(results.find((r) => r.status === 413)!.json.detail).toMatch(/per_user/);
    // The secret key writing for alice meets the same cap.
    expect((await putObject(env.server, app, bucket_id, 'more', random(1), { query: `?user_id=${alice.userId}` })).status).toBe(413);
    expect((await putObject(env.server, app, bucket_id, 'b', random(5000), { bearer: bob.token, publishableKey: app.publishable_key })).status).toBe(200);
    expect(await bucketOf(env, app, bucket_id)).toMatchObject({ used_bytes: 10_000, object_count: 6 });
  });

  it('the app limit (--objects-limit-bytes) across buckets: 8 concurrent 1000-byte uploads into 4000 → exactly 4', async () => {
    const small = await createApp(env.server, { tenantId: app.tenant_id, args: ['--objects-limit-bytes', '4000'] });
    expect(small.objects_limit_bytes).toBe(4000);
    const one = await createBucket(env.server, small, 'one');
    const two = await createBucket(env.server, small, 'two');
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => putObject(env.server, small, i % 2 ? one.bucket_id : two.bucket_id, `k${i}`, random(1000))),
    );
    expect(statuses(results)).toEqual([200, 200, 200, 200, 413, 413, 413, 413]);
    expect(results.find((r) => r.status === 413)!.json.detail).toMatch(/object storage limit/);
    const usage = await storage(env.server, small);
    expect(usage).toMatchObject({ used_bytes: 4000, limit_bytes: 4000, used_percent: 100 });
    expect(usage.buckets.reduce((sum, b) => sum + b.object_count, 0)).toBe(4);
    expect(await env.blobCount(small.app_id)).toBe(4);
    // Raising the limit with `app update` lets the next write through.
    const updated = await cliJson<TestApp>(env.server, ['app', 'update', small.app_id, '--objects-limit-bytes', '5000']);
    expect(updated.objects_limit_bytes).toBe(5000);
    expect((await putObject(env.server, small, one.bucket_id, 'fifth', random(1000))).status).toBe(200);
    expect(await storage(env.server, small)).toMatchObject({ used_bytes: 5000, limit_bytes: 5000 });
  });

  it('an overwrite counts only its size difference, both ways', async () => {
    const { bucket_id } = await createBucket(env.server, app, undefined, { max_size_bytes: 1000 });
    expect((await putObject(env.server, app, bucket_id, 'k', random(900))).status).toBe(200);
    // 1000 bytes over 900: +100 fits the 1000-byte cap although 1900 would not.
    const bigger = random(1000);
    expect((await putObject(env.server, app, bucket_id, 'k', bigger)).status).toBe(200);
    expect(await bucketOf(env, app, bucket_id)).toMatchObject({ used_bytes: 1000, object_count: 1 });
    expect((await getObject(env.server, app, bucket_id, 'k')).body.equals(bigger)).toBe(true);
    expect((await putObject(env.server, app, bucket_id, 'other', random(1))).status).toBe(413);
    // Shrinking gives bytes back.
    expect((await putObject(env.server, app, bucket_id, 'k', random(400))).status).toBe(200);
    expect(await bucketOf(env, app, bucket_id)).toMatchObject({ used_bytes: 400, object_count: 1 });
    expect((await putObject(env.server, app, bucket_id, 'other', random(600))).status).toBe(200);
    expect(await bucketOf(env, app, bucket_id)).toMatchObject({ used_bytes: 1000, object_count: 2 });
  });

  it('concurrent overwrites of one key leave one object, one blob and its exact size in every counter', async () => {
    const lone = await createApp(env.server, { tenantId: app.tenant_id });
    const { bucket_id } = await createBucket(env.server, lone, 'same');
    const sizes = [100, 2000, 300, 4000, 500, 6000];
    const results = await Promise.all(sizes.map((size) => putObject(env.server, lone, bucket_id, 'same-key', random(size))));
    expect(statuses(results)).toEqual(sizes.map(() => 200));
    const got = await getObject(env.server, lone, bucket_id, 'same-key');
    const bucket = await bucketOf(env, lone, bucket_id);
    expect(bucket).toEqual(expect.objectContaining({ object_count: 1, used_bytes: got.body.length }));
    expect((await storage(env.server, lone)).used_bytes).toBe(got.body.length);
    await expect.poll(() => env.blobCount(lone.app_id)).toBe(1);
  });

  it('PATCH lowering a cap below usage refuses later writes only; null removes the cap', async () => {
    const { bucket_id } = await createBucket(env.server, app);
    expect((await putObject(env.server, app, bucket_id, 'a', random(500))).status).toBe(200);
    await api(env.server, 'PATCH', `/v1/buckets/${bucket_id}`, { bearer: app.secret_key, body: { max_size_bytes: 100 } });
    expect((await getObject(env.server, app, bucket_id, 'a')).status).toBe(200);
    expect((await putObject(env.server, app, bucket_id, 'b', random(1))).status).toBe(413);
    await api(env.server, 'PATCH', `/v1/buckets/${bucket_id}`, { bearer: app.secret_key, body: { max_size_bytes: null } });
    expect((await putObject(env.server, app, bucket_id, 'b', random(1))).status).toBe(200);
  });
});
