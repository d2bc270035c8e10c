import type { Db } from '../../store/db.js';

// Storage the metering run charges for, summed over the tenant's apps from the usage rows each feature
// keeps exact (they change in the same write as the data).

/** Bytes of custom-table row data held by the tenant's apps now (the tables feature's exact usage rows). */
export async function tableStorageBytes(db: Db, tenantId: string): Promise<number> {
  const row = await db
    .selectFrom('custom_table_usage')
    .innerJoin('applications', 'applications.id', 'custom_table_usage.app_id')
    .where('applications.tenant_id', '=', tenantId)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('custom_table_usage.used_bytes'), eb.val(0)).as('bytes'))
    .executeTakeFirst();
  return Number(row?.bytes ?? 0);
}

/**
 * Bytes of objects held by the tenant's apps now (object storage's exact per-app usage rows), without the
 * reservations of uploads in flight: those count against the caps while they run, but are not stored
 * objects, and one stranded by a crash must never be billed (issue 38).
 */
export async function objectStorageBytes(db: Db, tenantId: string): Promise<number> {
  const used = await db
    .selectFrom('object_storage_usage')
    .innerJoin('applications', 'applications.id', 'object_storage_usage.app_id')
    .where('applications.tenant_id', '=', tenantId)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('object_storage_usage.used_bytes'), eb.val(0)).as('bytes'))
    .executeTakeFirst();
  // Uploads in flight are few: an index walk over the tenant's apps' rows (object_uploads_app).
  const reserved = await db
    .selectFrom('object_uploads')
    .innerJoin('applications', 'applications.id', 'object_uploads.app_id')
    .where('applications.tenant_id', '=', tenantId)
    .select((eb) => eb.fn.coalesce(eb.fn.sum<number>('object_uploads.reserved_bytes'), eb.val(0)).as('bytes'))
    .executeTakeFirst();
  return Math.max(0, Number(used?.bytes ?? 0) - Number(reserved?.bytes ?? 0));
}
