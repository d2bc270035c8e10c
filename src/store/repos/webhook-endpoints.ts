import type { Updateable } from 'kysely';
import type { Db } from '../db.js';
import type { WebhookEndpointRow, WebhookEndpointsTable } from '../types.js';

// An app's webhook endpoints, their event_types entries and the count that caps them (migration 0033).

/**
 * Takes one of the app's `max` endpoint slots in one write: the upsert raises the count only while it is
 * under `max`, and concurrent callers queue on the count's row (PostgreSQL re-checks the condition after
 * the first commits; SQLite writes one at a time). False when the app is at the cap.
 */
export async function reserveEndpointSlot(db: Db, appId: string, max: number): Promise<boolean> {
  const row = await db
    .insertInto('webhook_endpoint_counts')
    .values({ app_id: appId, endpoints: 1 })
    .onConflict((oc) => oc.column('app_id').doUpdateSet((eb) => ({ endpoints: eb('webhook_endpoint_counts.endpoints', '+', 1) })).where('webhook_endpoint_counts.endpoints', '<', max))
    .returning('endpoints')
    .executeTakeFirst();
  return row !== undefined;
}

/** Gives a slot back (a deleted endpoint). */
export async function releaseEndpointSlot(db: Db, appId: string): Promise<void> {
  await db.updateTable('webhook_endpoint_counts').set((eb) => ({ endpoints: eb('endpoints', '-', 1) })).where('app_id', '=', appId).where('endpoints', '>', 0).execute();
}

export async function insertEndpoint(db: Db, row: WebhookEndpointRow, patterns: string[]): Promise<void> {
  await db.insertInto('webhook_endpoints').values(row).execute();
  await insertPatterns(db, row.app_id, row.id, patterns);
}

async function insertPatterns(db: Db, appId: string, endpointId: string, patterns: string[]): Promise<void> {
  const unique = [...new Set(patterns)];
  if (unique.length) await db.insertInto('webhook_endpoint_types').values(unique.map((pattern) => ({ app_id: appId, pattern, endpoint_id: endpointId }))).execute();
}

/** Replaces the endpoint's event_types entries (PATCH). */
export async function replaceEndpointPatterns(db: Db, appId: string, endpointId: string, patterns: string[]): Promise<void> {
  await db.deleteFrom('webhook_endpoint_types').where('app_id', '=', appId).where('endpoint_id', '=', endpointId).execute();
  await insertPatterns(db, appId, endpointId, patterns);
}

/** The app's endpoint, or undefined (another app's id too). */
export async function findEndpoint(db: Db, appId: string, endpointId: string): Promise<WebhookEndpointRow | undefined> {
  return db.selectFrom('webhook_endpoints').selectAll().where('app_id', '=', appId).where('id', '=', endpointId).executeTakeFirst();
}

/** The endpoints of these ids (the worker's claimed deliveries name them; ids are unique across apps). */
export async function findEndpointsByIds(db: Db, ids: string[]): Promise<WebhookEndpointRow[]> {
  if (ids.length === 0) return [];
  return db.selectFrom('webhook_endpoints').selectAll().where('id', 'in', ids).execute();
}

/** Every endpoint of the app, oldest first (at most the cap, 20). */
export async function listEndpoints(db: Db, appId: string): Promise<WebhookEndpointRow[]> {
  return db.selectFrom('webhook_endpoints').selectAll().where('app_id', '=', appId).orderBy('created_at').orderBy('id').execute();
}

/** Changes the endpoint; answers the row as written, or undefined when the app has no such endpoint. */
export async function updateEndpoint(db: Db, appId: string, endpointId: string, changes: Updateable<WebhookEndpointsTable>): Promise<WebhookEndpointRow | undefined> {
  return db.updateTable('webhook_endpoints').set(changes).where('app_id', '=', appId).where('id', '=', endpointId).returningAll().executeTakeFirst();
}

/** Replaces the endpoint's secrets if its secret is still `previousSealed` (two rotations at once: one wins). */
export async function replaceEndpointSecret(
  db: Db,
  appId: string,
  endpointId: string,
  previousSealed: string,
  changes: { secret_sealed: string; previous_secret_sealed: string; previous_expires_at: string; updated_at: string },
): Promise<boolean> {
  const result = await db
    .updateTable('webhook_endpoints')
    .set(changes)
    .where('app_id', '=', appId)
    .where('id', '=', endpointId)
    .where('secret_sealed', '=', previousSealed)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Deletes the endpoint with its entries and deliveries; true when it existed. */
export async function deleteEndpoint(db: Db, appId: string, endpointId: string): Promise<boolean> {
  const removed = await db.deleteFrom('webhook_endpoints').where('app_id', '=', appId).where('id', '=', endpointId).returning('id').executeTakeFirst();
  if (!removed) return false;
  await db.deleteFrom('webhook_endpoint_types').where('app_id', '=', appId).where('endpoint_id', '=', endpointId).execute();
  await db.deleteFrom('webhook_deliveries').where('app_id', '=', appId).where('endpoint_id', '=', endpointId).execute();
  return true;
}

/**
 * Disables an enabled endpoint (a 410, or failures for WEBHOOK_DISABLE_AFTER_SECONDS); true when this call
 * did, so its webhook.disabled event is written once however many attempts fail at the same time.
 */
export async function disableEndpoint(db: Db, appId: string, endpointId: string, reason: string, now: string): Promise<WebhookEndpointRow | undefined> {
  return db
    .updateTable('webhook_endpoints')
    .set({ enabled: 0, disabled_reason: reason, updated_at: now })
    .where('app_id', '=', appId)
    .where('id', '=', endpointId)
    .where('enabled', '=', 1)
    .returningAll()
    .executeTakeFirst();
}

/** Notes a failed attempt: keeps the first failure's time since the last success; answers it. */
export async function markEndpointFailing(db: Db, endpointId: string, now: string): Promise<string | undefined> {
  const row = await db
    .updateTable('webhook_endpoints')
    .set((eb) => ({ failing_since: eb.fn.coalesce('failing_since', eb.val(now)) }))
    .where('id', '=', endpointId)
    .returning('failing_since')
    .executeTakeFirst();
  return row?.failing_since ?? undefined;
}

/** A delivered attempt: the endpoint is healthy again. */
export async function markEndpointHealthy(db: Db, endpointId: string): Promise<void> {
  await db.updateTable('webhook_endpoints').set({ failing_since: null }).where('id', '=', endpointId).where('failing_since', 'is not', null).execute();
}
