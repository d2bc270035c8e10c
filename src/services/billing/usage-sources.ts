import type { Db } from '../../store/db.js';

// Storage the metering run charges for, summed over the tenant's apps from the usage rows each feature
// keeps exact (they change in the same write as the data).

/** The tables of per-app byte counts metering reads, and their counts; each row's app_id names its app. */
type ByteTable = 'custom_table_usage' | 'object_storage_usage' | 'object_uploads';
type ByteCount = 'custom_table_usage.used_bytes' | 'object_storage_usage.used_bytes' | 'object_uploads.reserved_bytes';

/** The sum of `count`, a column of `table`, over its rows that belong to the tenant's apps (0 when there are none). */
async function sumOverTenantApps<T extends ByteTable>(db: Db, tenantId: string, table: T, count: Extract<ByteCount, `${T}.${string}`>): Promise<number> {
  const row = await db
    .selectFrom(table as ByteTable)
    .innerJoin('applications', 'applications.id', `${table as ByteTable}.app_id`)
    .where('applications.tenant_id', '=', tenantId)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>(count), eb.val(0)).as('bytes'))
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

/** Bytes of custom-table row data held by the tenant's apps now (the tables feature's exact usage rows). */
export function tableStorageBytes(db: Db, tenantId: string): Promise<number> {
  return sumOverTenantApps(db, tenantId, 'custom_table_usage', 'custom_table_usage.used_bytes');
}

/**
 * Bytes of objects held by the tenant's apps now (object storage's exact per-app usage rows), without the
 * reservations of uploads in flight: those count against the caps while they run, but are not stored
 * objects, and one stranded by a crash must never be billed (issue 38).
 */
export async function objectStorageBytes(db: Db, tenantId: string): Promise<number> {
  const used = await sumOverTenantApps(db, tenantId, 'object_storage_usage', 'object_storage_usage.used_bytes');
  // Uploads in flight are few: an index walk over the tenant's apps' rows (object_uploads_app).
  const reserved = await sumOverTenantApps(db, tenantId, 'object_uploads', 'object_uploads.reserved_bytes');
  return Math.max(0, used - reserved);
}
