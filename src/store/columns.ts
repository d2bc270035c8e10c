import type { ApplicationsTable, CustomTablesTable, SigningKeysTable, UsersTable } from './types.js';

/**
 * Every column of a table, listed (the compiler refuses a list that misses one), for the hot queries
 * that PostgreSQL runs as named prepared statements: a prepared `select *` fails with "cached plan must
 * not change result type" once a migration adds a column while a server runs; a column list does not.
 */
function everyColumn<T>() {
  return <const C extends readonly (keyof T & string)[]>(columns: C & ([Exclude<keyof T, C[number]>] extends [never] ? unknown : { missing: Exclude<keyof T, C[number]> })) =>
    columns as C;
}

export const APPLICATION_COLUMNS = everyColumn<ApplicationsTable>()([
  'id', 'tenant_id', 'name', 'domain', 'allowed_origins', 'verification_method', 'passwords_enabled', 'hashcash_enabled',
  'hashcash_difficulty', 'bot_min_usd_cents', 'objects_limit_bytes', 'tables_limit_bytes', 'link_landing', 'self_delete', 'created_at', 'updated_at',
  'deleted_at', 'mfa_policy', 'token_claims', 'organizations_enabled', 'org_creation', 'email_from', 'reply_to', 'cookie_domain',
]);

export const USER_COLUMNS = everyColumn<UsersTable>()([
  'id', 'app_id', 'email', 'email_normalized', 'email_verified', 'password_hash', 'is_bot', 'public_key', 'requires_verification',
  'contested', 'created_at', 'updated_at', 'public_metadata', 'private_metadata', 'unsafe_metadata', 'banned',
  'external_id', 'locale',
]);

export const SIGNING_KEY_COLUMNS = everyColumn<SigningKeysTable>()(['id', 'app_id', 'version', 'kid', 'public_jwk', 'private_key_sealed', 'created_at', 'retired_at']);

export const CUSTOM_TABLE_COLUMNS = everyColumn<CustomTablesTable>()(['id', 'app_id', 'name', 'column_count', 'created_at', 'updated_at', 'schema_version']);

/** `table.column` for each column, as Kysely's select takes them. */
export function qualified<T extends string, const C extends readonly string[]>(table: T, columns: C): `${T}.${C[number]}`[] {
  return columns.map((column) => `${table}.${column}` as `${T}.${C[number]}`);
}
