import { DeleteObjectCommand, ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createHash, randomBytes } from 'node:crypto';
import { appendFileSync, existsSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';
import { expect } from 'vitest';
import { api, createApp, type TestApp } from './fixtures.js';
import { startFreezableProxy } from './freezable-proxy.js';
import { startServer, type TestServer } from './server.js';

// Object storage tests run every case on both blob stores: files on disk, and a real S3-compatible
// server (s3rver, started here on loopback) reached through @aws-sdk/client-s3.

export type StoreKind = 'file' | 's3';
export const STORES: StoreKind[] = ['file', 's3'];
const S3_BUCKET = 'gatehouse-test';
const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface ObjectEnv {
  kind: StoreKind;
  server: TestServer;
  /** Blobs the store holds for the app (uploads' temporary files included). */
  blobCount(appId: string): Promise<number>;
  /** Removes the app's blobs from the store behind the service's back. */
  removeBlobs(appId: string): Promise<void>;
  /** Makes the blob store fail every request from now on: its directory becomes a file, or the S3 server stops. */
  breakBlobStore(): Promise<void>;
  /** S3 only: the store accepts connections and answers nothing (a frozen process), until thawed. */
  freeze(): void;
  thaw(): void;
  stop(): Promise<void>;
}

/**
 * A Gatehouse server on the given blob store (and, for s3, the S3 server behind it). With OBJECT_TEST_LOG
 * set, the server's output is appended to that file when it stops (its log lines name the cause of a 500).
 */
export async function startObjectServer(kind: StoreKind, env: Record<string, string> = {}): Promise<ObjectEnv> {
  if (kind === 'file') {
    const server = await startServer(env);
    const root = join(server.dir, 'data/blobs');
    return {
      kind,
      server,
      blobCount: async (appId) => countFiles(join(root, appId)) + countFiles(join(root, '.tmp')),
      removeBlobs: async (appId) => rmSync(join(root, appId), { recursive: true, force: true }),
      breakBlobStore: async () => {
        renameSync(root, `${root}.moved`);
        writeFileSync(root, 'not a directory');
      },
      freeze: () => {
        throw new Error('only the S3 store freezes');
      },
      thaw: () => {},
      stop: async () => {
        if (process.env.OBJECT_TEST_LOG) appendFileSync(process.env.OBJECT_TEST_LOG, server.output());
        await server.stop();
      },
    };
  }
  const dir = mkdtempSync(join(tmpdir(), 'gatehouse-s3-'));
  // Port 0: the server binds a port of its own at once (a probed port could be taken before it binds).
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, directory: dir, silent: true, configureBuckets: [{ name: S3_BUCKET }] });
  const { port } = (await s3.run()) as { port: number };
  const endpoint = `http://127.0.0.1:${port}`;
  // The service reaches s3rver through a proxy the test can freeze; the test's own client goes direct.
  const proxy = await startFreezableProxy(port);
  const server = await startServer({
    BLOB_STORE: `s3://${S3_BUCKET}?endpoint=${encodeURIComponent(`http://127.0.0.1:${proxy.port}`)}&region=us-east-1&force_path_style=true`,
    AWS_ACCESS_KEY_ID: S3_CREDENTIALS.accessKeyId,
    AWS_SECRET_ACCESS_KEY: S3_CREDENTIALS.secretAccessKey,
    ...env,
  });
  const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: S3_CREDENTIALS });
  return {
    kind,
    server,
    blobCount: async (appId) => {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: S3_BUCKET, Prefix: `${appId}/` }));
      return listed.KeyCount ?? 0;
    },
    removeBlobs: async (appId) => {
      const listed = await client.send(new ListObjectsV2Command({ Bucket: S3_BUCKET, Prefix: `${appId}/` }));
      for (const { Key } of listed.Contents ?? []) await client.send(new DeleteObjectCommand({ Bucket: S3_BUCKET, Key }));
    },
    breakBlobStore: async () => {
      await s3.close();
    },
    freeze: () => proxy.freeze(),
    thaw: () => proxy.thaw(),
    stop: async () => {
      client.destroy();
      if (process.env.OBJECT_TEST_LOG) appendFileSync(process.env.OBJECT_TEST_LOG, server.output());
      await server.stop();
      await proxy.close();
      await s3.close().catch(() => {}); // already stopped by breakBlobStore
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function countFiles(dir: string): number {
  if (!existsSync(dir)) return 0;
  return readdirSync(dir, { withFileTypes: true }).filter((e) => e.isFile()).length;
}

export const md5Etag = (data: Buffer) => `"${createHash('md5').update(data).digest('hex')}"`;
export const random = (size: number) => randomBytes(size);

export interface RawResponse {
  status: number;
  headers: Headers;
  body: Buffer;
  json: any;
}

function toHeaders(raw: Record<string, string | string[] | undefined>): Headers {
  const headers = new Headers();
  for (const [key, value] of Object.entries(raw)) {
    for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(key, v);
  }
  return headers;
}

/**
 * One request whose body is raw bytes (sent in 64 KiB writes), answered as bytes. An answer that comes
 * before the body is sent (a refused upload) is returned as it is; the rest of the body is dropped.
 */
export function rawRequest(
  server: TestServer,
  method: string,
  path: string,
  options: { body?: Buffer; declaredLength?: number; headers?: Record<string, string>; bearer?: string; publishableKey?: string } = {},
): Promise<RawResponse> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  if (options.publishableKey) headers['x-publishable-key'] = options.publishableKey;
  if (options.body !== undefined) headers['content-length'] = String(options.declaredLength ?? options.body.length);
  return new Promise((resolve, reject) => {
    let answered = false;
    // The path goes out as written (a URL object would resolve '..' before sending).
    const req = httpRequest({ host: '127.0.0.1', port: server.port, path, method, headers }, (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => {
        const body = Buffer.concat(chunks);
        let json: unknown;
        try {
          json = JSON.parse(body.toString('utf8'));
        } catch {
          json = undefined;
        }
        resolve({ status: res.statusCode ?? 0, headers: toHeaders(res.headers), body, json });
      });
    });
    req.on('error', (error) => {
      if (!answered) reject(error);
    });
    const body = options.body;
    if (body === undefined) return void req.end();
    let offset = 0;
    const writeMore = () => {
      while (offset < body.length && !answered) {
        const chunk = body.subarray(offset, offset + 65_536);
        offset += chunk.length;
        if (!req.write(chunk)) return void req.once('drain', writeMore);
      }
      if (!answered || offset >= body.length) req.end();
    };
    writeMore();
  });
}

/** A user of the app and a live access token for them (server-side creation + sign-in token). */
export async function sessionUser(server: TestServer, app: TestApp): Promise<{ userId: string; token: string }> {
  const email = `u.${randomBytes(6).toString('hex')}@example.com`;
  const user = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } });
  expect(user.status).toBe(201);
  const token = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: user.body.id } });
  expect(token.status).toBe(200);
  return { userId: user.body.id, token: token.body.token };
}

export async function createBucket(server: TestServer, app: TestApp, name = `b-${randomBytes(4).toString('hex')}`, caps: Record<string, number | null> = {}) {
  const created = await api(server, 'POST', '/v1/buckets', { bearer: app.secret_key, body: { name } });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  if (Object.keys(caps).length) {
    const patched = await api(server, 'PATCH', `/v1/buckets/${created.body.bucket_id}`, { bearer: app.secret_key, body: caps });
    expect(patched.status, JSON.stringify(patched.body)).toBe(200);
  }
  return created.body as { bucket_id: string; name: string };
}

export const objectPath = (bucketId: string, key: string, query = '') =>
  `/v1/buckets/${bucketId}/objects/${key.split('/').map(encodeURIComponent).join('/')}${query}`;

/** PUT with the secret key (or the given credentials). */
export const putObject = (server: TestServer, app: TestApp, bucketId: string, key: string, body: Buffer, options: { contentType?: string; query?: string; bearer?: string; publishableKey?: string } = {}) =>
  rawRequest(server, 'PUT', objectPath(bucketId, key, options.query), {
    body,
    bearer: options.bearer ?? app.secret_key,
    publishableKey: options.publishableKey,
    headers: { 'content-type': options.contentType ?? 'application/octet-stream' },
  });

export const getObject = (server: TestServer, app: TestApp, bucketId: string, key: string, headers: Record<string, string> = {}, query = '') =>
  rawRequest(server, 'GET', objectPath(bucketId, key, query), { bearer: app.secret_key, headers });

export async function storage(server: TestServer, app: TestApp) {
  const res = await api(server, 'GET', '/v1/buckets/storage', { bearer: app.secret_key });
  expect(res.status).toBe(200);
  return res.body as { used_bytes: number; limit_bytes: number; used_percent: number; buckets: { bucket_id: string; used_bytes: number; object_count: number }[] };
}

export { createApp };
