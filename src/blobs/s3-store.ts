import type { S3Client } from '@aws-sdk/client-s3';
import { pipeline, type Readable } from 'node:stream';
import type { BlobStoreConfig } from '../config/index.js';
import { exactLength } from './exact-length.js';
import { assertBlobName, type BlobStore, type ByteRange } from './store.js';

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

  constructor(config: S3Config) {
    this.bucket = config.bucket;
    this.ready = import('@aws-sdk/client-s3').then((sdk) => {
      const client = new sdk.S3Client({
        endpoint: config.endpoint,
        region: config.region ?? 'us-east-1',
        forcePathStyle: config.forcePathStyle,
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
    const result = await client.send(
      new sdk.GetObjectCommand({ Bucket: this.bucket, Key: name, Range: range ? `bytes=${range.start}-${range.end}` : undefined }),
    );
    return result.Body as Readable;
  }

  async delete(name: string): Promise<void> {
    assertBlobName(name);
    const { sdk, client } = await this.ready;
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.bucket, Key: name }));
  }

  /** A PutObject that fails stores nothing: S3 has no temporary pieces to sweep. */
  async sweepTemporary(): Promise<number> {
    return 0;
  }

  async close(): Promise<void> {
    (await this.ready).client.destroy();
  }
}
