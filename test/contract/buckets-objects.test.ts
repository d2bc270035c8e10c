import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../helpers/fixtures.js';
import { createApp, createBucket, getObject, md5Etag, putObject, random, rawRequest, startObjectServer, storage, STORES, type ObjectEnv } from '../helpers/objects.js';

// docs/storage.md: objects stored and read back byte for byte, with their
// headers, on both blob stores (OBJECTS_MAX_BYTES at its 50 MiB default).

const MiB = 1024 * 1024;

describe.each(STORES)('4.8 objects on the %s store', (kind) => {
  let env: ObjectEnv;
  let app: TestApp;
  let bucketId: string;

  beforeAll(async () => {
    env = await startObjectServer(kind);
    app = await createApp(env.server);
    bucketId = (await createBucket(env.server, app, 'files')).bucket_id;
  });
  afterAll(async () => {
    await env?.stop();
  });

  it.each([0, 1, 5 * MiB])('PUT 200 with the Object, GET returns the same %i random bytes', async (size) => {
    const data = random(size);
    const key = `round/${size}.bin`;
    const put = await putObject(env.server, app, bucketId, key, data, { contentType: 'application/octet-stream' });
    expect(put.status, put.body.toString()).toBe(200);
    expect(put.json).toEqual({
      key,
      size_bytes: size,
      content_type: 'application/octet-stream',
      user_id: null,
      organization_id: null,
      etag: md5Etag(data),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: put.json.created_at,
    });
    const got = await getObject(env.server, app, bucketId, key);
    expect(got.status).toBe(200);
    expect(got.headers.get('content-length')).toBe(String(size));
    expect(got.body.equals(data)).toBe(true);
  });

  it('413 for a body over OBJECTS_MAX_BYTES (60 MiB), refused from its Content-Length before the body is read; nothing is stored', async () => {
    const before = await storage(env.server, app);
    // Only 64 KiB of the declared 60 MiB are ever sent: the answer cannot have waited for the body.
    const res = await rawRequest(env.server, 'PUT', `/v1/buckets/${bucketId}/objects/huge.bin`, {
      body: random(64 * 1024),
      declaredLength: 60 * MiB,
      bearer: app.secret_key,
      headers: { 'content-type': 'application/octet-stream' },
    });
    expect(res.status).toBe(413);
    expect(res.json).toEqual({ detail: expect.stringContaining('OBJECTS_MAX_BYTES'), code: expect.any(String) });
    expect((await getObject(env.server, app, bucketId, 'huge.bin')).status).toBe(404);
    expect((await storage(env.server, app)).used_bytes).toBe(before.used_bytes);
  });

  it('411 for a chunked upload without Content-Length', async () => {
    const res = await rawRequest(env.server, 'PUT', `/v1/buckets/${bucketId}/objects/chunked`, {
      bearer: app.secret_key,
      headers: { 'transfer-encoding': 'chunked', 'content-type': 'text/plain' },
    });
    expect(res.status).toBe(411);
  });

  it('serves the stored Content-Type with ETag, Last-Modified, nosniff and a sandboxing CSP', async () => {
    const data = Buffer.from('{"hello":"world"}');
    // A JSON body is stored as bytes, never parsed by the server.
    expect((await putObject(env.server, app, bucketId, 'data.json', data, { contentType: 'application/json' })).status).toBe(200);
    const got = await getObject(env.server, app, bucketId, 'data.json');
    expect(got.status).toBe(200);
    expect(got.body.equals(data)).toBe(true);
    expect(got.headers.get('content-type')).toBe('application/json');
    expect(got.headers.get('etag')).toBe(md5Etag(data));
    expect(Date.parse(got.headers.get('last-modified')!)).toBeGreaterThan(Date.now() - 120_000);
    expect(got.headers.get('x-content-type-options')).toBe('nosniff');
    expect(got.headers.get('content-security-policy')).toMatch(/sandbox/);
    expect(got.headers.get('content-security-policy')).toMatch(/default-src 'none'/);
    expect(got.headers.get('content-disposition')).toBe('inline');
    const head = await rawRequest(env.server, 'HEAD', `/v1/buckets/${bucketId}/objects/data.json`, { bearer: app.secret_key });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(data.length));
    expect(head.headers.get('etag')).toBe(md5Etag(data));
    expect(head.body.length).toBe(0);
  });

  it.each(['text/html; charset=utf-8', 'image/svg+xml', 'application/xml', 'text/xml', 'text/javascript', 'application/javascript', 'application/xhtml+xml'])(
    '%s is served as an attachment, so an uploaded page cannot run on the API origin',
    async (type) => {
      const key = `active/${type.replace(/[^a-z]/g, '')}`;
      expect((await putObject(env.server, app, bucketId, key, Buffer.from('<script>alert(1)</script>'), { contentType: type })).status).toBe(200);
      const got = await getObject(env.server, app, bucketId, key);
      expect(got.headers.get('content-type')).toBe(type);
      expect(got.headers.get('content-disposition')).toMatch(/^attachment/);
      expect(got.headers.get('x-content-type-options')).toBe('nosniff');
      expect(got.headers.get('content-security-policy')).toMatch(/sandbox/);
    },
  );

  it('a missing Content-Type is stored as application/octet-stream; a malformed one is 400', async () => {
    const put = await rawRequest(env.server, 'PUT', `/v1/buckets/${bucketId}/objects/untyped`, { body: Buffer.from('x'), bearer: app.secret_key });
    expect(put.status).toBe(200);
    expect(put.json.content_type).toBe('application/octet-stream');
    const bad = await putObject(env.server, app, bucketId, 'badtype', Buffer.from('x'), { contentType: 'not a type' });
    expect(bad.status).toBe(400);
    expect((await getObject(env.server, app, bucketId, 'badtype')).status).toBe(404);
  });

  it('If-None-Match with the ETag → 304 without a body; another ETag → 200', async () => {
    const data = random(1000);
    await putObject(env.server, app, bucketId, 'cached', data);
    const etag = md5Etag(data);
    const fresh = await getObject(env.server, app, bucketId, 'cached', { 'if-none-match': etag });
    expect(fresh.status).toBe(304);
    expect(fresh.body.length).toBe(0);
    expect(fresh.headers.get('etag')).toBe(etag);
    expect((await getObject(env.server, app, bucketId, 'cached', { 'if-none-match': `W/${etag}` })).status).toBe(304);
    expect((await getObject(env.server, app, bucketId, 'cached', { 'if-none-match': '"other"' })).status).toBe(200);
  });

  it('one Range → 206 with Content-Range and exactly those bytes; unsatisfiable → 416', async () => {
    const data = random(10_000);
    await putObject(env.server, app, bucketId, 'ranged', data);
    const cases: [string, number, number][] = [
      ['bytes=0-0', 0, 0],
      ['bytes=100-199', 100, 199],
      ['bytes=9990-', 9990, 9999],
      ['bytes=-10', 9990, 9999],
      ['bytes=9000-20000', 9000, 9999],
    ];
    for (const [range, start, end] of cases) {
      const got = await getObject(env.server, app, bucketId, 'ranged', { range });
      expect(got.status, range).toBe(206);
      expect(got.headers.get('content-range')).toBe(`bytes ${start}-${end}/10000`);
      expect(got.headers.get('content-length')).toBe(String(end - start + 1));
      expect(got.body.equals(data.subarray(start, end + 1)), range).toBe(true);
    }
    const past = await getObject(env.server, app, bucketId, 'ranged', { range: 'bytes=10000-' });
    expect(past.status).toBe(416);
    expect(past.headers.get('content-range')).toBe('bytes */10000');
    expect(past.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
    // Several ranges are not served as multipart: the whole object comes back.
    const multi = await getObject(env.server, app, bucketId, 'ranged', { range: 'bytes=0-1,5-6' });
    expect(multi.status).toBe(200);
    expect(multi.body.equals(data)).toBe(true);
  });

  it('keys may hold slashes, unicode, traversal-looking text and 1024 bytes; each is its own object', async () => {
    const keys = ['a/b/c.txt', 'résumé/日本語 🎉.txt', '../../etc/passwd', '..', '/abs/path', 'a%2Fb', 'x'.repeat(1024), '/'.repeat(1024), 'C:\\windows\\win.ini'];
    for (const key of keys) {
      const data = Buffer.from(`content of ${key.slice(0, 40)}`);
      const put = await putObject(env.server, app, bucketId, key, data, { contentType: 'text/plain' });
      expect(put.status, key.slice(0, 40)).toBe(200);
      expect(put.json.key).toBe(key);
      const got = await getObject(env.server, app, bucketId, key);
      expect(got.body.toString(), key.slice(0, 40)).toBe(data.toString());
    }
    // A key is found by its exact text only: '..' never walks to a neighbour.
    expect((await getObject(env.server, app, bucketId, 'a/b/../b/c.txt')).status).toBe(404);
  });

  it('400 for a key over 1024 bytes, an empty key, or one with NUL or control characters; nothing is stored', async () => {
    const before = await storage(env.server, app);
    for (const key of ['x'.repeat(1025), 'é'.repeat(513), 'nul\u0000byte', 'line\nbreak']) {
      const put = await putObject(env.server, app, bucketId, key, Buffer.from('x'));
      expect(put.status, JSON.stringify(key.slice(0, 20))).toBe(400);
    }
    const empty = await rawRequest(env.server, 'PUT', `/v1/buckets/${bucketId}/objects/`, { body: Buffer.from('x'), bearer: app.secret_key });
    expect(empty.status).toBe(400);
    expect((await storage(env.server, app)).used_bytes).toBe(before.used_bytes);
  });

  it('DELETE answers {status: deleted}, the bytes are gone, a second DELETE is 404', async () => {
    await putObject(env.server, app, bucketId, 'doomed', random(500));
    const del = await api(env.server, 'DELETE', `/v1/buckets/${bucketId}/objects/doomed`, { bearer: app.secret_key });
    expect(del.status).toBe(200);
    expect(del.body).toEqual({ status: 'deleted' });
    expect((await getObject(env.server, app, bucketId, 'doomed')).status).toBe(404);
    expect((await api(env.server, 'DELETE', `/v1/buckets/${bucketId}/objects/doomed`, { bearer: app.secret_key })).status).toBe(404);
  });
});
