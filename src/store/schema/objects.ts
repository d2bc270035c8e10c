import type { Generated, Selectable } from 'kysely';

// Object storage (migration 0009).

export interface BucketsTable {
  id: string;
  app_id: string;
  name: string;
  max_size_bytes: number | null;
  max_size_bytes_per_user: number | null;
  /** Bytes one organisation may hold in the bucket (migration 0035); null: no cap of its own. */
  max_size_bytes_per_org?: number | null;
  used_bytes: number; // committed objects plus uploads in flight
  object_count: number;
  created_at: string;
  updated_at: string;
}

export type BucketRow = Selectable<BucketsTable>;

export interface ObjectsTable {
  bucket_id: string;
  owner: string; // user id, or '' for none
  key: string;
  app_id: string;
  blob_id: string;
  size_bytes: number;
  content_type: string;
  etag: string;
  created_at: string;
  updated_at: string;
}

export type ObjectRow = Selectable<ObjectsTable>;

export interface BucketUserUsageTable {
  bucket_id: string;
  user_id: string;
  used_bytes: number;
}

export interface ObjectStorageUsageTable {
  app_id: string;
  used_bytes: number;
}

export interface ObjectUploadsTable {
  blob_id: string;
  app_id: string;
  bucket_id: string;
  owner: string;
  reserved_bytes: number;
  created_at: string;
  /** The node serving the upload (migration 0023); null on rows of an earlier release. */
  node_id: string | null;
  /** When that node last vouched for it; null on rows of an earlier release (the hour-long timeout applies). */
  alive_at: string | null;
}

export interface BlobDeletionsTable {
  blob_id: string;
  app_id: string;
  created_at: string;
  /** The token of the write that queued the blob last (random): a deleter removes the row only with it. */
  token: Generated<string>;
}
