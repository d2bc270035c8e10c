import type { Kysely } from 'kysely';

// Custom tables (docs/tables.md): metadata of tables and columns, and the per-app usage row that
// every row write changes with one conditional UPDATE. The rows themselves live in real tables `t_<id>`
// made at run time (src/store/repos/custom-rows.ts), so nothing about them is here.

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('custom_tables')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('app_id', 'text', (c) => c.notNull().references('applications.id'))
    .addColumn('name', 'text', (c) => c.notNull())
    // Counted by one conditional UPDATE (<= 100 columns); the same UPDATE locks the table for column changes.
    .addColumn('column_count', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('custom_tables_app_name', ['app_id', 'name'])
    .execute();

  await db.schema
    .createTable('custom_columns')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('table_id', 'text', (c) => c.notNull().references('custom_tables.id').onDelete('cascade'))
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('required', 'integer', (c) => c.notNull())
    .addColumn('default_value', 'text') // JSON of the default, null for none
    .addColumn('position', 'integer', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addUniqueConstraint('custom_columns_table_name', ['table_id', 'name'])
    .execute();

  // Read by billing (table storage metering): keep the name and used_bytes.
  await db.schema
    .createTable('custom_table_usage')
    .addColumn('app_id', 'text', (c) => c.primaryKey().references('applications.id'))
    .addColumn('used_bytes', 'bigint', (c) => c.notNull().defaultTo(0))
    .addColumn('table_count', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();

  await db.schema.alterTable('applications').addColumn('tables_limit_bytes', 'bigint').execute();
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').dropColumn('tables_limit_bytes').execute();
  for (const table of ['custom_table_usage', 'custom_columns', 'custom_tables']) await db.schema.dropTable(table).execute();
}
