import type { Kysely } from 'kysely';

// Installation-wide settings, one row per name. The first is the master key's check value (an HMAC of a
// fixed label under MASTER_KEY, never the key): a process whose key matches it neither as MASTER_KEY nor
// as MASTER_KEY_PREVIOUS refuses to start (services/apps/master-key-check.ts).

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('settings')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('value', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('settings').execute();
}
