import { sql, type Kysely } from 'kysely';

// Deleting and exporting a user (issue 36, docs/privacy.md) as one scoped pass:
// - applications.self_delete: whether DELETE /v1/me is open (app option --self-delete, default on).
// - an index by owner under every table a user's deletion or export walks that had none (objects and
//   uploads by (app, owner), per-bucket user usage, SSO tokens), and one on user_id alone under each table
//   whose foreign key names users: deleting the user row checks that no row still references it, and both
//   databases look for one by the child's column alone (PostgreSQL's RI query, SQLite's FK check), which the
//   (app_id, user_id) indexes cannot serve: without these, that check scans every session and challenge;
// - every custom data table's user index becomes (user_id, row_id): an export pages a user's rows in
//   row_id order, and a deletion finds them, by one index walk (the old (user_id) index is its prefix).

const OWNER_INDEXES: [name: string, table: string, columns: string[]][] = [
  ['objects_owner', 'objects', ['app_id', 'owner', 'bucket_id', 'key']],
  ['object_uploads_owner', 'object_uploads', ['app_id', 'owner']],
  ['bucket_user_usage_user', 'bucket_user_usage', ['user_id']],
  ['sso_tokens_user', 'sso_tokens', ['user_id']],
  ['sessions_user_ref', 'sessions', ['user_id']],
  ['email_challenges_user_ref', 'email_challenges', ['user_id']],
  ['oauth_identities_user_ref', 'oauth_identities', ['user_id']],
];

/** `t_<hex>` / `i_<hex>_u` of a custom table id (a generated UUID; checked, as custom-rows.ts does). */
function dataNames(tableId: string): { table: string; index: string } {
  if (!/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(tableId)) throw new Error(`unexpected custom table id ${tableId}`);
  const hex = tableId.replace(/-/g, '');
  return { table: `t_${hex}`, index: `i_${hex}_u` };
}

async function userIndexes(db: Kysely<any>, columns: string[]): Promise<void> {
  const tables = await db.selectFrom('custom_tables').select('id').execute();
  for (const { id } of tables as { id: string }[]) {
    const names = dataNames(id);
    await sql`drop index if exists ${sql.id(names.index)}`.execute(db);
    await sql`create index ${sql.id(names.index)} on ${sql.table(names.table)} (${sql.join(columns.map((c) => sql.ref(c)))})`.execute(db);
  }
}

export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('applications').addColumn('self_delete', 'integer', (c) => c.notNull().defaultTo(1)).execute();
  for (const [name, table, columns] of OWNER_INDEXES) await db.schema.createIndex(name).on(table).columns(columns).execute();
  await userIndexes(db, ['user_id', 'row_id']);
}

export async function down(db: Kysely<any>): Promise<void> {
  await userIndexes(db, ['user_id']);
  for (const [name] of [...OWNER_INDEXES].reverse()) await db.schema.dropIndex(name).execute();
  await db.schema.alterTable('applications').dropColumn('self_delete').execute();
}
