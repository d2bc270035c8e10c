import { PostgresAdapter, sql, type Kysely } from 'kysely';

// PostgreSQL: the custom-table query's check (the table's metadata row for the app, and, for a secret key
// the node presumes, that key being live: liveKeyGateSql in src/store/repos/applications.ts, as it read
// when this was written) as a function. PL/pgSQL plans its statement once per connection, so a page whose
// plan depends on its values (planned with them on every execution) no longer plans the check with it:
// 0.25 → 0.09 ms of planning for a deep page (docs/tables.md). The answer is the table's schema version,
// or null when the app has no such table or the key is not live. STABLE: it reads with the calling
// statement's snapshot. SQLite reads the metadata in its own call (cachesTableMetadata) and has no need.

export async function up(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`
    create function gh_checked_table_version(p_table text, p_app text, p_key_hash text, p_now text) returns integer
    language plpgsql stable as $body$
    begin
      return (select m.schema_version from custom_tables m where m.id = p_table and m.app_id = p_app
        and (p_key_hash is null or exists (select 1 from api_keys k inner join applications a on a.id = k.app_id left join billing_accounts b on b.tenant_id = a.tenant_id where k.key_hash = p_key_hash and k.kind = 'secret' and k.app_id = m.app_id and (k.expires_at is null or k.expires_at > p_now) and (b.paused is null or b.paused = 0))));
    end
    $body$`.execute(db);
}

export async function down(db: Kysely<any>): Promise<void> {
  if (!(db.getExecutor().adapter instanceof PostgresAdapter)) return;
  await sql`drop function gh_checked_table_version(text, text, text, text)`.execute(db);
}
