import type { S3Client } from '@aws-sdk/client-s3';
import { pipeline, type Readable } from 'node:stream';
import type { BlobStoreConfig } from '../config/index.js';
import { LogThrottle } from '../observability/log-throttle.js';
import type { Logger } from '../observability/logger.js';
import { withBlobDeadline } from './deadline.js';
import { exactLength } from './exact-length.js';
import { assertBlobName, BLOB_NAME, type BlobStore, type BlobStoreOptions, type ByteRange } from './store.js';

type S3Config = Extract<BlobStoreConfig, { kind: 's3' }>;
type Sdk = typeof import('@aws-sdk/client-s3');

/**
 * Blobs in an S3-compatible bucket (AWS S3, MinIO, R2, ...). Credentials come from the usual AWS
 * variables. One streamed PutObject with Content-Length per blob: objects are at most OBJECTS_MAX_BYTES,
 * and lib-storage's multipart upload would buffer parts in memory.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly bucket: string;
  // The SDK is imported only when an S3 store is made: it holds tens of MB that a server on the file store never needs.
  private readonly ready: Promise<{ sdk: Sdk; client: S3Client }>;

  private readonly timeoutMs: number;

  constructor(config: S3Config, options: BlobStoreOptions) {
    this.bucket = config.bucket;
    this.timeoutMs = options.timeoutMs;
    const logger = sdkLogger(options.log);
    this.ready = import('@aws-sdk/client-s3').then((sdk) => {
      const client = new sdk.S3Client({
        endpoint: config.endpoint,
        region: config.region ?? 'us-east-1',
        forcePathStyle: config.forcePathStyle,
        // A store that accepts connections and answers nothing (frozen, overloaded) must not hold a request
        // and its socket: connecting, and any silence of BLOB_TIMEOUT_MS on a request's connection (an
        // upload's bytes going out, an answer's coming in), fail the call. Whole calls with a bounded size
        // (GetObject's answer, DeleteObject) are bounded again below, retries included.
        requestHandler: { connectionTimeout: options.timeoutMs, socketTimeout: options.timeoutMs, logger },
        // Without a logger the SDK writes its warnings to the console, plain text inside the JSON log.
        logger,
        // Since 3.729 the SDK sends a streamed body as aws-chunked with a trailing CRC32 by default. Many
        // S3-compatible servers (s3rver, which the tests run; older MinIO and Ceph; R2 at first) cannot parse
        // that framing and store the chunk headers as data. Checksums only when an operation requires them.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      });
      return { sdk, client };
    });
  }

  async put(name: string, body: Readable, size: number): Promise<void> {
    assertBlobName(name);
    // pipeline carries a failure of the source (a client gone mid-body) into the body the SDK reads, and
    // listens for it, so it fails the PutObject instead of the process.
    // The SDK pipes the body into its request and would wait forever for the rest of a failed one: abort it.
    const { sdk, client } = await this.ready;
    const abort = new AbortController();
    const counted = pipeline(body, exactLength(size), (error) => error && abort.abort(error));
    await client.send(
      new sdk.PutObjectCommand({ Bucket: this.bucket, Key: name, Body: counted, ContentLength: size, ContentType: 'application/octet-stream' }),
      { abortSignal: abort.signal },
    );
  }

  async get(name: string, range?: ByteRange): Promise<Readable> {
    assertBlobName(name);
    const { sdk, client } = await this.ready;
    const command = new sdk.GetObjectCommand({ Bucket: this.bucket, Key: name, Range: range ? `bytes=${range.start}-${range.end}` : undefined });
    // Bounded until the answer's headers; its bytes then stream under the socket's silence timeout.
    // An answer that comes after the deadline is dropped unread.
    const result = await withBlobDeadline('answer', this.timeoutMs, (abortSignal) => client.send(command, { abortSignal }), (late) => (late.Body as Readable | undefined)?.destroy());
    return result.Body as Readable;
  }

  async delete(name: string): Promise<void> {
    assertBlobName(name);
    const { sdk, client } = await this.ready;
    const command = new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: name });
    await withBlobDeadline('delete the blob', this.timeoutMs, (abortSignal) => client.send(command, { abortSignal }));
  }

  /** A PutObject that fails stores nothing: S3 has no temporary pieces to sweep. */
  async sweepTemporary(): Promise<number> {
    return 0;
  }

  async exists(name: string): Promise<boolean> {
    assertBlobName(name);
    const { sdk, client } = await this.ready;
    try {
      await withBlobDeadline('answer', this.timeoutMs, (abortSignal) => client.send(new sdk.HeadObjectCommand({ Bucket: this.bucket, Key: name }), { abortSignal }));
      return true;
    } catch (error) {
      if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404 || (error as Error).name === 'NotFound') return false;
      throw error;
    }
  }

  async *list(): AsyncIterable<string> {
    const { sdk, client } = await this.ready;
    let token: string | undefined;
    do {
      const page = await withBlobDeadline('answer', this.timeoutMs, (abortSignal) =>
        client.send(new sdk.ListObjectsV2Command({ Bucket: this.bucket, Prefix: 'app_', ContinuationToken: token }), { abortSignal }),
      );
      for (const item of page.Contents ?? []) if (item.Key && BLOB_NAME.test(item.Key)) yield item.Key;
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async close(): Promise<void> {
    (await this.ready).client.destroy();
  }
}

/** How often the SDK's own warnings reach the log (each kind once per interval, with how many were left out). */
const SDK_LOG_EVERY_MS = 60_000;

/**
 * The SDK's logger, writing through the service's: its warnings (a failed streamed PutObject, sockets at
 * capacity, a slow request) become JSON `warn` lines, once per kind per minute. Its info lines (every
 * command's input and output) and debug lines are dropped.
 */
function sdkLogger(log: Logger) {
  const throttle = new LogThrottle(SDK_LOG_EVERY_MS);
  const warn = (...args: unknown[]) => {
    const message = args.map((a) => (a instanceof Error ? a.message : typeof a === 'string' ? a : JSON.stringify(a))).join(' ').slice(0, 500);
    // The kind of warning: its text without numbers, so "capacity=50" and "capacity=51" are one kind.
    const suppressed = throttle.admit(message.replace(/\d+/g, '#').slice(0, 120));
    if (suppressed !== undefined) log.warn({ code: 'blob_store_client', suppressed }, `object store client: ${message}`);
  };
  const quiet = () => {};
  return { trace: quiet, debug: quiet, info: quiet, warn, error: warn };
}
