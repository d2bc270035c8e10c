import type { Readable } from 'node:stream';
import type { Logger } from '../observability/logger.js';

/** An inclusive byte range, already checked against the blob's size. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * Where object bytes live. Names are made by the service from generated ids (`app_.../uuid`), never
 * from object keys. Every method streams: no blob is ever held whole in memory.
 */
export interface BlobStore {
  readonly kind: 'file' | 's3';
  /**
   * Streams exactly `size` bytes from `body` into the blob `name`. The blob appears whole or not at all;
   * a body that ends early, runs long or errors rejects and leaves nothing.
   */
  put(name: string, body: Readable, size: number): Promise<void>;
  /** The blob's bytes (or the range); rejects when it does not exist. */
  get(name: string, range?: ByteRange): Promise<Readable>;
  /** Removes the blob; a missing blob is not an error (deletions are retried by the sweep). */
  delete(name: string): Promise<void>;
  /** Removes temporary pieces of writes begun before `before` (a crash mid-write); returns how many. */
  sweepTemporary(before: Date): Promise<number>;
  /** Whether the blob exists (gatehouse doctor, backup). */
  exists(name: string): Promise<boolean>;
  /** Every blob's name, temporary pieces left out, in no set order (gatehouse doctor). */
  list(): AsyncIterable<string>;
  close(): Promise<void>;
}

/** Blob names are `<app id>/<uuid>`: checked here too, so no caller can ever reach outside the store. */
export const BLOB_NAME = /^app_[A-Za-z0-9]{1,64}\/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function assertBlobName(name: string): void {
  if (!BLOB_NAME.test(name)) throw new Error(`refusing blob name ${JSON.stringify(name)}`);
}

export interface BlobStoreOptions {
  /** BLOB_TIMEOUT_MS: how long any one call may wait on the store (docs/operations.md, "Timeouts"). */
  timeoutMs: number;
  log: Logger;
}
