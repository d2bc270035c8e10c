import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../helpers/fixtures.js';
import { createApp, createBucket, putObject, random, startObjectServer, storage, STORES, type ObjectEnv } from '../helpers/objects.js';

// docs/storage.md and docs/api.md: bucket records, names, caps, listing and storage.

describe('4.8 buckets', () => {
  let env: ObjectEnv;
  let app: TestApp;
  const secret = (method: string, path: string, body?: unknown) => api(env.server, method, path, { bearer: app.secret_key, body });

  beforeAll(async () => {
    env = await startObjectServer('file');
    app = await createApp(env.server);
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('POST /v1/buckets → 201 with the Bucket record; GET reads it; the list holds it', async () => {
    const res = await secret('POST', '/v1/buckets', { name: 'avatars' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      bucket_id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
      name: 'avatars',
      max_size_bytes: null,
      max_size_bytes_per_user: null,
      max_size_bytes_per_org: null,
      used_bytes: 0,
      object_count: 0,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: res.body.created_at,
    });
    expect((await secret('GET', `/v1/buckets/${res.body.bucket_id}`)).body).toEqual(res.body);
    expect((await secret('GET', '/v1/buckets')).body.buckets).toContainEqual(res.body);
  });

  it("12 metering: GET /v1/billing shows the tenant's object bytes, summed over its apps", async () => {
    const own = await createApp(env.server);
    const sibling = await createApp(env.server, { tenantId: own.tenant_id });
    const a = await createBucket(env.server, own);
    const b = await createBucket(env.server, sibling);
    expect((await putObject(env.server, own, a.bucket_id, 'one.bin', random(1000))).status).toBe(200);
    expect((await putObject(env.server, sibling, b.bucket_id, 'two.bin', random(234))).status).toBe(200);
    const billing = await api(env.server, 'GET', '/v1/billing', { bearer: own.secret_key });
    expect(billing.status).toBe(200);
    expect(billing.body.usage.object_storage_bytes).toBe(1234);
  });

  it('409 for a name the app already has; another app may use it', async () => {
    await createBucket(env.server, app, 'shared-name');
    expect((await secret('POST', '/v1/buckets', { name: 'shared-name' })).status).toBe(409);
    const other = await createApp(env.server, { tenantId: app.tenant_id });
    expect((await api(env.server, 'POST', '/v1/buckets', { bearer: other.secret_key, body: { name: 'shared-name' } })).status).toBe(201);
  });

  it.each([[''], ['UPPER'], ['has space'], ['a'.repeat(64)], ['slash/name'], ['ü']])('400 for the name %j, and nothing is created', async (name) => {
    const before = (await secret('GET', '/v1/buckets')).body.buckets.length;
    const res = await secret('POST', '/v1/buckets', { name });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
    expect((await secret('GET', '/v1/buckets')).body.buckets).toHaveLength(before);
  });

  it('accepts every allowed character and 63 of them', async () => {
    expect((await secret('POST', '/v1/buckets', { name: 'a-b_c.d0' })).status).toBe(201);
    expect((await secret('POST', '/v1/buckets', { name: 'z'.repeat(63) })).status).toBe(201);
  });

  it('PATCH sets either cap alone, leaves the omitted one, null removes it', async () => {
    const { bucket_id } = await createBucket(env.server, app);
    const both = await secret('PATCH', `/v1/buckets/${bucket_id}`, { max_size_bytes: 5000, max_size_bytes_per_user: 100 });
    expect(both.body).toMatchObject({ max_size_bytes: 5000, max_size_bytes_per_user: 100 });
    const one = await secret('PATCH', `/v1/buckets/${bucket_id}`, { max_size_bytes_per_user: 200 });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ max_size_bytes: 5000, max_size_bytes_per_user: 200 });
    const cleared = await secret('PATCH', `/v1/buckets/${bucket_id}`, { max_size_bytes: null });
    expect(cleared.body).toMatchObject({ max_size_bytes: null, max_size_bytes_per_user: 200 });
    expect(Date.parse(cleared.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(cleared.body.created_at));
    expect((await secret('PATCH', `/v1/buckets/${bucket_id}`, {})).body).toMatchObject({ max_size_bytes: null, max_size_bytes_per_user: 200 });
  });

  it.each([[{ max_size_bytes: -1 }], [{ max_size_bytes: 1.5 }], [{ max_size_bytes_per_user: -5 }], [{ max_size_bytes_per_user: 0.1 }], [{ max_size_bytes: 'lots' }], [{ max_size_bytes: '5' }], [{ max_size_bytes_per_user: true }], [{ max_size_bytes: [7] }]])(
    'PATCH %j → 400 and nothing changes',
    async (body) => {
      const { bucket_id } = await createBucket(env.server, app, undefined, { max_size_bytes: 10, max_size_bytes_per_user: 5 });
      const res = await secret('PATCH', `/v1/buckets/${bucket_id}`, body);
      expect(res.status).toBe(400);
      expect((await secret('GET', `/v1/buckets/${bucket_id}`)).body).toMatchObject({ max_size_bytes: 10, max_size_bytes_per_user: 5 });
    },
  );

  it('400 for a bucket id that is not a UUID; 404 for an unknown one', async () => {
    expect((await secret('GET', '/v1/buckets/not-a-uuid')).status).toBe(400);
    expect((await secret('GET', '/v1/buckets/00000000-0000-4000-8000-000000000000')).status).toBe(404);
    expect((await secret('DELETE', '/v1/buckets/00000000-0000-4000-8000-000000000000')).status).toBe(404);
  });

  it('GET /v1/buckets/storage: used, limit (OBJECTS_STORAGE_LIMIT_BYTES default 1 GiB), percent and each bucket', async () => {
    const lone = await createApp(env.server, { tenantId: app.tenant_id });
    const { bucket_id } = await createBucket(env.server, lone, 'one');
    expect((await putObject(env.server, lone, bucket_id, 'k', random(1024 * 1024))).status).toBe(200);
    expect(await storage(env.server, lone)).toEqual({
      used_bytes: 1024 * 1024,
      limit_bytes: 1024 * 1024 * 1024,
      used_percent: 0.1,
      buckets: [{ bucket_id, name: 'one', used_bytes: 1024 * 1024, object_count: 1 }],
    });
  });
});

describe.each(STORES)('4.8 object listing on the %s store', (kind) => {
  let env: ObjectEnv;
  let app: TestApp;
  let bucketId: string;
  const list = (query: string) => api(env.server, 'GET', `/v1/buckets/${bucketId}/objects${query}`, { bearer: app.secret_key });

  beforeAll(async () => {
    env = await startObjectServer(kind);
    app = await createApp(env.server);
    bucketId = (await createBucket(env.server, app)).bucket_id;
    for (const key of ['docs/a', 'docs/b', 'docs/c', 'img/x', 'img/y', 'readme', '100%_done']) {
      expect((await putObject(env.server, app, bucketId, key, Buffer.from(key), { contentType: 'text/plain' })).status).toBe(200);
    }
  });
  afterAll(async () => {
    await env?.stop();
  });

  it('objects in key order with their records; next_cursor null on the last page', async () => {
    const res = await list('');
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.objects.map((o: { key: string }) => o.key)).toEqual(['100%_done', 'docs/a', 'docs/b', 'docs/c', 'img/x', 'img/y', 'readme']);
    expect(res.body.objects[1]).toEqual({
      key: 'docs/a',
      size_bytes: 6,
      content_type: 'text/plain',
      user_id: null,
      organization_id: null,
      etag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
  });

  it('prefix filters by leading text (% and _ are plain characters)', async () => {
    expect((await list('?prefix=docs/')).body.objects.map((o: { key: string }) => o.key)).toEqual(['docs/a', 'docs/b', 'docs/c']);
    expect((await list(`?prefix=${encodeURIComponent('100%_')}`)).body.objects.map((o: { key: string }) => o.key)).toEqual(['100%_done']);
    expect((await list('?prefix=do_s')).body.objects).toEqual([]);
  });

  it('limit and cursor walk every object once, stable when objects are added between pages', async () => {
    const first = await list('?limit=2');
    expect(first.body.objects.map((o: { key: string }) => o.key)).toEqual(['100%_done', 'docs/a']);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    // Inserted before the cursor: never shifts the following pages.
    await putObject(env.server, app, bucketId, '000-early', Buffer.from('x'));
    const seen: string[] = [...first.body.objects.map((o: { key: string }) => o.key)];
    let cursor = first.body.next_cursor;
    while (cursor) {
      const page = await list(`?limit=2&cursor=${encodeURIComponent(cursor)}`);
      expect(page.status).toBe(200);
      seen.push(...page.body.objects.map((o: { key: string }) => o.key));
      cursor = page.body.next_cursor;
    }
    expect(seen).toEqual(['100%_done', 'docs/a', 'docs/b', 'docs/c', 'img/x', 'img/y', 'readme']);
  });

  it('400 for limit 0 or 1001, a non-integer limit, a forged cursor or a bad user_id', async () => {
    for (const query of ['?limit=0', '?limit=1001', '?limit=2.5', '?cursor=not-ours', '?user_id=nope']) {
      const res = await list(query);
      expect(res.status, query).toBe(400);
      expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
    }
    expect((await list('?limit=1000')).status).toBe(200);
  });
});
