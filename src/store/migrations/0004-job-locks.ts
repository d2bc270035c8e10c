import type { Kysely } from 'kysely';

// A lease per background job, so work that must run once (clean-up, metering) runs on one node at a time.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('job_locks')
    .addColumn('name', 'text', (c) => c.primaryKey())
    .addColumn('holder', 'text', (c) => c.notNull())
    .addColumn('locked_until', 'text', (c) => c.notNull())
    .execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('job_locks').execute();
}
