import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, type TestApp } from '../helpers/fixtures.js';
import { createApp, createBucket, getObject, objectPath, putObject, random, startObjectServer, storage, STORES, type ObjectEnv } from '../helpers/objects.js';
import { LOG_FLUSH_MS } from '../../src/observability/logger.js';
import type { TestServer } from '../helpers/server.js';

// Issue 38, items 5, 7 and 8: a blob store that freezes or fails. Every blob call is bounded by
// BLOB_TIMEOUT_MS and answered 503 with Retry-After, the upload's reservation released; a client still
// sending its body receives the 503 rather than a broken pipe; the failures reach the log as a few JSON
// warnings. Runs on SQLite and PostgreSQL (the reservations are rows and counters there).

// Short enough to test, long enough that a busy machine's s3rver (in the test process) is never taken
// for a frozen one.
const BLOB_TIMEOUT_MS = 4_000;
/** Room for a loaded machine around a bound that is the point of the test. */
const SLACK_MS = 6_000;
const MiB = 1024 * 1024;

interface RawOutcome {
  /** The status line's code, once the whole answer (headers and Content-Length bytes) was read. */
  status?: number;
  body?: string;
  /** The socket error, when the answer could not be read in full. */
  error?: string;
}

/**
 * An upload by a client that sends its whole body whatever the server says meanwhile (as a browser or a
 * plain HTTP client does), and reads the answer as it comes. What it got is the answer, or the error that
 * stopped it reading one (EPIPE, ECONNRESET).
 */
function uploadRegardless(server: TestServer, path: string, secret: string, size: number): Promise<RawOutcome> {
  return new Promise((resolve) => {
    const socket = connect(server.port, '127.0.0.1');
    let received = Buffer.alloc(0);
    let settled = false;
    const finish = (outcome: RawOutcome) => {
      if (settled) return;
      settled = true;
      socket.destroy();
      resolve(outcome);
    };
    const complete = (): RawOutcome | undefined => {
      const text = received.toString('latin1');
      const end = text.indexOf('\r\n\r\n');
      if (end < 0) return undefined;
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1] ?? NaN);
      if (received.length < end + 4 + length) return undefined;
      return { status: Number(text.slice(9, 12)), body: received.subarray(end + 4, end + 4 + length).toString('utf8') };
    };
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
      const answer = complete();
      if (answer) finish(answer);
    });
    socket.on('error', (error: NodeJS.ErrnoException) => finish(complete() ?? { error: error.code ?? error.message }));
    socket.on('close', () => finish(complete() ?? { error: 'closed before the answer' }));
    socket.write(
      `PUT ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${secret}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${size}\r\n\r\n`,
    );
    const body = random(size);
    let offset = 0;
    const more = () => {
      while (offset < size && !settled) {
        const chunk = body.subarray(offset, offset + 64 * 1024);
        offset += chunk.length;
        if (!socket.write(chunk)) return void socket.once('drain', more);
      }
    };
    more();
  });
}

/** The log lines after the start-up banner (itself a JSON line off a terminal): every one must be a JSON object. */
function linesAfterBanner(server: TestServer): string[] {
  const output = server.output();
  const banner = output.indexOf('"code":"listening"');
  return output
    .slice(output.indexOf('\n', banner) + 1)
    .split('\n')
    .filter((line) => line.trim() !== '');
}

describe.each(STORES)('issue 38: the %s store frozen, then failing', (kind) => {
  let env: ObjectEnv;
  let app: TestApp;
  let bucketId: string;

  let startedAt = 0;

  beforeAll(async () => {
    startedAt = Date.now();
    env = await startObjectServer(kind, { BLOB_TIMEOUT_MS: String(BLOB_TIMEOUT_MS) });
    app = await createApp(env.server);
    bucketId = (await createBucket(env.server, app, 'blobs')).bucket_id;
  });
  afterAll(async () => {
    env?.thaw();
    await env?.stop();
  });

  it.skipIf(kind === 'file')('5 blob timeout: uploads answer 503 with Retry-After within BLOB_TIMEOUT_MS and give their reservation back; downloads 503 and deletes answer within it; thawed, all work again', async () => {
    const kept = random(100_000);
    expect((await putObject(env.server, app, bucketId, 'kept.bin', kept)).status).toBe(200);
    const doomed = random(50_000);
    expect((await putObject(env.server, app, bucketId, 'doomed.bin', doomed)).status).toBe(200);
    const before = await storage(env.server, app);
    expect(before.used_bytes).toBe(150_000);

    env.freeze();
    try {
      const timed = async <T>(call: () => Promise<T>) => {
        const started = Date.now();
        const result = await call();
        return { result, ms: Date.now() - started };
      };
      // Several at once: none holds another, each is bounded on its own.
      const uploads = await Promise.all([1, 2, 3].map((i) => timed(() => putObject(env.server, app, bucketId, `new-${i}.bin`, random(i * 300_000)))));
      for (const { result, ms } of uploads) {
        expect(result.status, result.body.toString()).toBe(503);
        expect(result.json).toEqual({ detail: expect.any(String), code: expect.any(String) });
        expect(Number(result.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(ms).toBeLessThan(BLOB_TIMEOUT_MS + SLACK_MS);
      }
      // Nothing stays reserved by the failed uploads.
      expect((await storage(env.server, app)).used_bytes).toBe(before.used_bytes);

      const download = await timed(() => getObject(env.server, app, bucketId, 'kept.bin'));
      expect(download.result.status).toBe(503);
      expect(Number(download.result.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(download.ms).toBeLessThan(BLOB_TIMEOUT_MS + SLACK_MS);

      // A delete removes the object at once; its blob's removal waits for the store (the sweep retries it).
      const deleted = await timed(() => api(env.server, 'DELETE', objectPath(bucketId, 'doomed.bin'), { bearer: app.secret_key }));
      expect(deleted.result.status).toBe(200);
      expect(deleted.ms).toBeLessThan(BLOB_TIMEOUT_MS + SLACK_MS);
      expect((await storage(env.server, app)).used_bytes).toBe(100_000);
    } finally {
      env.thaw();
    }

    const again = random(200_000);
    expect((await putObject(env.server, app, bucketId, 'after.bin', again)).status).toBe(200);
    const read = await getObject(env.server, app, bucketId, 'kept.bin');
    expect(read.status).toBe(200);
    expect(read.body.equals(kept)).toBe(true);
    expect((await storage(env.server, app)).used_bytes).toBe(300_000);
  }, 180_000);

  it('7 a client still sending its body receives the 503 (never a broken pipe or a reset), 40 times in a row; nothing stays reserved', async () => {
    // One object first: the file store makes its directory on the first upload.
    expect((await putObject(env.server, app, bucketId, 'seed.bin', random(10))).status).toBe(200);
    const before = (await storage(env.server, app)).used_bytes;
    await env.breakBlobStore();

    const outcomes: RawOutcome[] = [];
    for (let i = 0; i < 40; i++) outcomes.push(await uploadRegardless(env.server, objectPath(bucketId, `try-${i}.bin`), app.secret_key, 2 * MiB));
    for (const outcome of outcomes) {
      expect(outcome.error).toBeUndefined();
      expect(outcome.status).toBe(503);
      expect(JSON.parse(outcome.body!)).toEqual({ detail: expect.any(String), code: expect.any(String) });
    }
    expect((await storage(env.server, app)).used_bytes).toBe(before);
  }, 180_000);

  it('8 the failures reach the log as JSON only: one warning per cause every 10 s with the cause, no stack, nothing in plain text', async () => {
    await new Promise((r) => setTimeout(r, LOG_FLUSH_MS + 150)); // queued log lines are out
    const lines = linesAfterBanner(env.server);
    for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow();
    const parsed = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    for (const line of parsed) expect(JSON.stringify(line)).not.toMatch(/"stack"/);
    expect(parsed.filter((l) => (l.level as number) >= 50)).toEqual([]);
    const failures = parsed.filter((l) => l.code === 'blob_store_unavailable');
    for (const line of failures) expect(line).toMatchObject({ level: 40, cause: expect.any(String), error: expect.any(String), suppressed: expect.any(Number) });
    // 40 and more failed uploads, and far fewer lines.
    expect(failures.length).toBeGreaterThanOrEqual(1);
    const window = Date.now() - startedAt;
    for (const cause of new Set(failures.map((l) => l.cause))) {
      expect(failures.filter((l) => l.cause === cause).length).toBeLessThanOrEqual(1 + Math.floor(window / 10_000));
    }
  });
});
