// client.storage: the app's buckets as the signed-in user sees them (docs/storage.md): their own objects,
// uploaded with progress, downloaded as a Blob.
import { sendUpload } from '#upload';
import { errorFrom } from './errors.js';
import type { Http } from './http.js';
import type { Bucket, Ok, StoredObject } from './types.js';
import type { UploadBody, UploadProgress } from './upload-types.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A key as a path: each segment encoded, `/` kept (the server reads both forms alike). */
const keyPath = (key: string) => key.split('/').map(encodeURIComponent).join('/');

export interface UploadOptions {
  /** Stored and served back as the object's Content-Type; a File's own type by default. */
  contentType?: string;
  onProgress?: (progress: UploadProgress) => void;
}

export class BucketApi {
  private id: Promise<string> | undefined;

  constructor(
    private readonly http: Http,
    private readonly bucket: string,
    private readonly buckets: () => Promise<Bucket[]>,
  ) {}

  /** The bucket's id: given, or found by name among the app's buckets. */
  private bucketId(): Promise<string> {
    this.id ??= UUID.test(this.bucket)
      ? Promise.resolve(this.bucket)
      : this.buckets().then((all) => {
          const found = all.find((b) => b.name === this.bucket);
          if (!found) throw errorFrom(404, { detail: `no bucket named ${this.bucket}` }, () => null);
          return found.bucket_id;
        });
    this.id.catch(() => (this.id = undefined));
    return this.id;
  }

  private async path(key: string): Promise<string> {
    return `/v1/buckets/${await this.bucketId()}/objects/${keyPath(key)}`;
  }

  /** Stores `body` under `key` (replacing what was there), reporting progress as the bytes leave. */
  async upload(key: string, body: UploadBody, options: UploadOptions = {}): Promise<StoredObject> {
    const path = await this.path(key);
    await this.http.session.fresh();
    const type = options.contentType ?? (typeof Blob !== 'undefined' && body instanceof Blob && body.type ? body.type : 'application/octet-stream');
    const answer = await sendUpload({
      url: this.http.url(path),
      headers: { ...this.http.headers(true), 'content-type': type },
      body,
      withCredentials: this.http.o.cookies,
      onProgress: options.onProgress,
    });
    const parsed = answer.text ? JSON.parse(answer.text) : undefined;
    if (answer.status < 200 || answer.status > 299) throw errorFrom(answer.status, parsed, answer.header);
    return parsed as StoredObject;
  }

  /** The object's bytes, as a Blob of its stored type. */
  async download(key: string): Promise<Blob> {
    return (await this.http.raw('GET', await this.path(key), { auth: true })).blob();
  }

  /** The user's objects, in key order, a page at a time. */
  async list(options: { prefix?: string; limit?: number; cursor?: string } = {}): Promise<Ok<'listObjects'>> {
    return this.http.json('GET', `/v1/buckets/${await this.bucketId()}/objects`, { auth: true, query: options });
  }

  async remove(key: string): Promise<void> {
    await this.http.json('DELETE', await this.path(key), { auth: true });
  }
}

export class StorageApi {
  constructor(private readonly http: Http) {}

  /** The app's buckets. */
  async list(): Promise<Bucket[]> {
    return (await this.http.json<Ok<'listBuckets'>>('GET', '/v1/buckets', { auth: true })).buckets;
  }

  /** One bucket, by id or by name. */
  from(bucket: string): BucketApi {
    return new BucketApi(this.http, bucket, () => this.list());
  }
}
