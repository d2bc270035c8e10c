import { sql } from 'kysely';
import type { Db } from '../db.js';
import { rowLimit } from '../limit.js';
import { dropDataTable } from './custom-rows.js';
import { queueBlobDeletions, type QueuedBlob } from './objects.js';

// The purge of a deleted app (services/apps/purge.ts): each function removes at most `limit` rows in one
// statement, found by an index walk on the app (or bucket) column, and answers how many it removed, so the
// caller loops until 0. Every function is idempotent: a purge cut by a crash runs them again from the top.
// These are the only deletes keyed by a table name: the names come from the constant list below, never
// from input.

/** A table of rows that belong to one app: its key columns (the batch's row identity) and the app column. */
export interface AppScopedTable {
  table: string;
  key: readonly string[];
  appColumn: string;
}

/** Tables keyed by `id` and scoped by `app_id`, the common case below, in the order given. */
const keyedById = (...tables: string[]): AppScopedTable[] => tables.map((table) => ({ table, key: ['id'], appColumn: 'app_id' }));

/**
 * The app's rows outside custom tables and object storage, children before their parents (foreign keys):
 * mail and codes of its users, then sessions, identities and users, then its keys. A new app-scoped table
 * goes here too (test/contract/apps-delete.test.ts checks every table with an app column at rest).
 */
export const APP_TABLES_BEFORE_USERS: readonly AppScopedTable[] = [
  ...keyedById('mail_outbox', 'email_challenges'),
  { table: 'refresh_tokens', key: ['token_hash'], appColumn: 'app_id' },
  { table: 'sso_tokens', key: ['token_hash'], appColumn: 'source_app_id' },
  ...keyedById('sessions', 'mfa_challenges', 'webauthn_challenges', 'mfa_recovery_codes', 'mfa_factors'),
  { table: 'oauth_identities', key: ['app_id', 'provider', 'subject'], appColumn: 'app_id' },
  { table: 'oauth_states', key: ['state_hash'], appColumn: 'app_id' },
  { table: 'oauth_providers', key: ['app_id', 'provider'], appColumn: 'app_id' },
  { table: 'hashcash_spent', key: ['challenge_hash'], appColumn: 'app_id' },
  { table: 'bot_auth_replays', key: ['signature_hash'], appColumn: 'app_id' },
  // Webhooks (migration 0033): the queue before the endpoints it names, then their patterns and the cap's count.
  ...keyedById('webhook_deliveries'),
  { table: 'webhook_endpoint_types', key: ['app_id', 'pattern', 'endpoint_id'], appColumn: 'app_id' },
  ...keyedById('webhook_endpoints'),
  { table: 'webhook_endpoint_counts', key: ['app_id'], appColumn: 'app_id' },
  // The app's events and their per-day counts (migration 0032; an app's counts are scoped by its id). The
  // tenant's own events (app_id null: app.created, app.deleted, members...) outlive the app they name.
  { table: 'events', key: ['event_id'], appColumn: 'app_id' },
  { table: 'event_counts', key: ['scope_id', 'day', 'type', 'slot'], appColumn: 'scope_id' },
];

export const APP_TABLES_AFTER_USERS: readonly AppScopedTable[] = [
  // Organisations (migration 0035): invitations and memberships before the organisations they name.
  ...keyedById('organization_invitations'),
  { table: 'organization_members', key: ['organization_id', 'user_id'], appColumn: 'app_id' },
  { table: 'organization_user_counts', key: ['app_id', 'user_id'], appColumn: 'app_id' },
  { table: 'organization_roles', key: ['app_id', 'key'], appColumn: 'app_id' },
  ...keyedById('organizations', 'users', 'api_keys', 'signing_keys'),
  { table: 'custom_table_usage', key: ['app_id'], appColumn: 'app_id' },
  { table: 'object_storage_usage', key: ['app_id'], appColumn: 'app_id' },
  // Monthly active users (migration 0022): the marks and the per-month counts, both keyed by app first.
  { table: 'active_users', key: ['app_id', 'user_id', 'period'], appColumn: 'app_id' },
  { table: 'active_user_counts', key: ['app_id', 'period', 'slot'], appColumn: 'app_id' },
  // The kept user count (migration 0027): stale while the purge deletes the users, gone with them.
  { table: 'user_counts', key: ['app_id', 'slot'], appColumn: 'app_id' },
  // The tenant's own email templates (migration 0038).
  { table: 'email_templates', key: ['app_id', 'kind', 'locale'], appColumn: 'app_id' },
];

const columns = (names: readonly string[]) => sql.join(names.map((name) => sql.ref(name)));

/** Deletes up to `limit` rows of `t` whose app column is `value`; the number deleted. */
export async function deleteBatch(db: Db, t: AppScopedTable, value: string, limit: number): Promise<number> {
  const result = await sql`delete from ${sql.table(t.table)} where (${columns(t.key)}) in (
    select ${columns(t.key)} from ${sql.table(t.table)} where ${sql.ref(t.appColumn)} = ${value} limit ${rowLimit(limit)})`.execute(db);
  return Number(result.numAffectedRows ?? 0n);
}

/** Up to `limit` custom tables of the app (ids). */
export async function listCustomTableIds(db: Db, appId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('custom_tables').select('id').where('app_id', '=', appId).limit(rowLimit(limit)).execute();
  return rows.map((row) => row.id);
}

/** Drops the data table `t_<id>` and removes its metadata: call inside a transaction (DDL is transactional on both databases). */
export async function dropCustomTable(db: Db, appId: string, tableId: string): Promise<void> {
  await dropDataTable(db, tableId);
  await db.deleteFrom('custom_columns').where('table_id', '=', tableId).execute();
  await db.deleteFrom('custom_tables').where('id', '=', tableId).where('app_id', '=', appId).execute();
}

/** Up to `limit` buckets of the app (ids). */
export async function listBucketIds(db: Db, appId: string, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('buckets').select('id').where('app_id', '=', appId).limit(rowLimit(limit)).execute();
  return rows.map((row) => row.id);
}

/**
 * Deletes up to `limit` objects of the bucket and queues their blobs for deletion in the same transaction
 * (the caller's): the queued blobs, for deletion right after the commit; the sweep takes any left by a crash.
 */
export async function deleteObjectBatch(db: Db, appId: string, bucketId: string, limit: number, now: string): Promise<QueuedBlob[]> {
  const { rows } = await sql<{ blob_id: string }>`delete from objects where (bucket_id, owner, ${sql.ref('key')}) in (
    select bucket_id, owner, ${sql.ref('key')} from objects where bucket_id = ${bucketId} and app_id = ${appId} limit ${rowLimit(limit)})
    returning blob_id`.execute(db);
  return queueBlobs(db, appId, rows.map((row) => row.blob_id), now);
}

/**
 * Deletes up to `limit` uploads in flight into the bucket, queueing their blobs dated `dueAt` (when no
 * upload can still be writing; the sweep deletes what landed, as a bucket deletion does).
 */
export async function deleteUploadBatch(db: Db, appId: string, bucketId: string, limit: number, dueAt: string): Promise<number> {
  const { rows } = await sql<{ blob_id: string }>`delete from object_uploads where blob_id in (
    select blob_id from object_uploads where app_id = ${appId} and bucket_id = ${bucketId} limit ${rowLimit(limit)})
    returning blob_id`.execute(db);
  await queueBlobs(db, appId, rows.map((row) => row.blob_id), dueAt);
  return rows.length;
}

async function queueBlobs(db: Db, appId: string, blobIds: string[], at: string): Promise<QueuedBlob[]> {
  return blobIds.length === 0 ? [] : queueBlobDeletions(db, appId, blobIds, at);
}

/** Per-user usage rows of the bucket, up to `limit`. */
export async function deleteBucketUserUsageBatch(db: Db, bucketId: string, limit: number): Promise<number> {
  return deleteBatch(db, { table: 'bucket_user_usage', key: ['bucket_id', 'user_id'], appColumn: 'bucket_id' }, bucketId, limit);
}

export async function deleteBucketRow(db: Db, appId: string, bucketId: string): Promise<void> {
  await db.deleteFrom('buckets').where('id', '=', bucketId).where('app_id', '=', appId).execute();
}

/** Blobs of the app queued for deletion by `before` (not those dated for uploads still able to write). */
export async function listQueuedBlobsOfApp(db: Db, appId: string, before: string, limit: number): Promise<QueuedBlob[]> {
  return db
    .selectFrom('blob_deletions')
    .select(['app_id', 'blob_id', 'token'])
    .where('app_id', '=', appId)
    .where('created_at', '<=', before)
    .limit(rowLimit(limit))
    .execute();
}
