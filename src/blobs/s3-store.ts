import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { pipeline, type Readable } from 'node:stream';
import type { BlobStoreConfig } from '../config/index.js';
import { exactLength } from './exact-length.js';
import { assertBlobName, type BlobStore, type ByteRange } from './store.js';

type S3Config = Extract<BlobStoreConfig, { kind: 's3' }>;

/**
 * Blobs in an S3-compatible bucket (AWS S3, MinIO, R2, ...). Credentials come from the usual AWS
 * variables. One streamed PutObject with Content-Length per blob: objects are at most OBJECTS_MAX_BYTES,
 * and lib-storage's multipart upload would buffer parts in memory.
 */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3' as const;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(config: S3Config) {
    this.bucket = config.bucket;
    this.client = new S3Client({
      endpoint: config.endpoint,
      region: config.region ?? 'us-east-1',
      forcePathStyle: config.forcePathStyle,
      // Since 3.729 the SDK sends a streamed body as aws-chunked with a trailing CRC32 by default. Many
      // S3-compatible servers (s3rver, which the tests run; older MinIO and Ceph; R2 at first) cannot parse
      // that framing and store the chunk headers as data. Checksums only when an operation requires them.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
  }

  async put(name: string, body: Readable, size: number): Promise<void> {
    assertBlobName(name);
    // pipeline carries a failure of the source (a client gone mid-body) into the body the SDK reads, and
    // listens for it, so it fails the PutObject instead of the process.
    // The SDK pipes the body into its request and would wait forever for the rest of a failed one: abort it.
    const abort = new AbortController();
    const counted = pipeline(body, exactLength(size), (error) => error && abort.abort(error));
    await this.client.send(
      new PutObjectCommand({ Bucket: this.bucket, Key: name, Body: counted, ContentLength: size, ContentType: 'application/octet-stream' }),
      { abortSignal: abort.signal },
    );
  }

  async get(name: string, range?: ByteRange): Promise<Readable> {
    assertBlobName(name);
    const result = await this.client.send(
      new GetObjectCommand({ Bucket: this.bucket, Key: name, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
    );
    return result.Body as Readable;
  }

  async delete(name: string): Promise<void> {
    assertBlobName(name);
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: name }));
  }

  /** A PutObject that fails stores nothing: S3 has no temporary pieces to sweep. */
  async sweepTemporary(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
