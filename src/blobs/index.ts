import type { BlobStoreConfig } from '../config/index.js';
import { FileBlobStore } from './file-store.js';
import { S3BlobStore } from './s3-store.js';
import type { BlobStore, BlobStoreOptions } from './store.js';

// The factory lives apart from the contract (store.ts) that both stores import, so neither imports it back.
export function createBlobStore(config: BlobStoreConfig, options: BlobStoreOptions & { failed?: (operation: string) => void }): BlobStore {
  const store = config.kind === 'file' ? new FileBlobStore(config.dir, options.timeoutMs) : new S3BlobStore(config, options);
  return options.failed ? counted(store, options.failed) : store;
}

/** The store with each failed call told to `failed` (gatehouse_blob_store_failures_total), then rethrown. */
function counted(store: BlobStore, failed: (operation: string) => void): BlobStore {
  const fail = (operation: string) => (error: unknown) => {
    failed(operation);
    throw error;
  };
  return {
    kind: store.kind,
    put: (name, body, size) => store.put(name, body, size).catch(fail('put')),
    get: (name, range) => store.get(name, range).catch(fail('get')),
    delete: (name) => store.delete(name).catch(fail('delete')),
    sweepTemporary: (before) => store.sweepTemporary(before).catch(fail('sweep')),
    exists: (name) => store.exists(name).catch(fail('exists')),
    list: () => store.list(),
    close: () => store.close(),
  };
}
