import type { BlobStoreConfig } from '../config/index.js';
import { FileBlobStore } from './file-store.js';
import { S3BlobStore } from './s3-store.js';
import type { BlobStore, BlobStoreOptions } from './store.js';

// The factory lives apart from the contract (store.ts) that both stores import, so neither imports it back.
export function createBlobStore(config: BlobStoreConfig, options: BlobStoreOptions): BlobStore {
  return config.kind === 'file' ? new FileBlobStore(config.dir, options.timeoutMs) : new S3BlobStore(config, options);
}
