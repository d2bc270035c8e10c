import { sql, type ExpressionBuilder, type QueryCreator } from 'kysely';
import { compiledQuery } from '../compiled.js';
import { rowLimit } from '../limit.js';
import { APPLICATION_COLUMNS, qualified } from '../columns.js';
import type { Db } from '../db.js';
import type { ApplicationRow, ApplicationUpdate, Database, NewApplication } from '../types.js';

export interface Application {
  id: string;
  tenantId: string;
  name: string;
  domain: string | null;
  allowedOrigins: string[];
  verificationMethod: 'code' | 'link' | 'both';
  passwordsEnabled: boolean;
  /** null: follows HASHCASH_ENABLED. */
  hashcashEnabled: boolean | null;
  hashcashDifficulty: number;
  botMinUsdCents: number;
  /** Emailed links answer a one-button page that POSTs the token (scanners cannot consume it). */
  linkLanding: boolean;
  /** Users may delete their own account (DELETE /v1/me; docs/privacy.md). */
  selfDelete: boolean;
  /** Every user must have a second factor (docs/mfa.md): sessions without one may only enroll. */
  mfaRequired: boolean;
  /** The custom claims template as set (JSON; services/sessions/token-claims.ts), or null. */
  tokenClaims: string | null;
  /** Organisations (docs/organizations.md): off, every organisation route is 404; 'server': only Secret creates them. */
  organizationsEnabled: boolean;
  orgCreation: 'users' | 'server';
  /** The app's sender and Reply-To (docs/email.md); null: EMAIL_FROM, and no Reply-To. */
  emailFrom: string | null;
  replyTo: string | null;
  /** `__session` is set for this parent domain of `domain` (docs/browser.md); null: host-only. */
  cookieDomain: string | null;
  createdAt: string;
  updatedAt: string;
  /** The tenant's balance is below zero (billing): every route but billing, health and JWKS answers 402. */
  paused: boolean;
}

/** An application row with its tenant's pause flag (null: the tenant has no billing account yet). */
type ApplicationWithPause = ApplicationRow & { tenant_paused?: number | null };

export function toApplication(row: ApplicationWithPause): Application {
  return {
    id: row.id,
    tenantId: row.tenant_id,
    name: row.name,
    domain: row.domain,
    allowedOrigins: JSON.parse(row.allowed_origins) as string[],
    verificationMethod: row.verification_method,
    passwordsEnabled: row.passwords_enabled === 1,
    hashcashEnabled: row.hashcash_enabled === null ? null : row.hashcash_enabled === 1,
    hashcashDifficulty: row.hashcash_difficulty,
    botMinUsdCents: row.bot_min_usd_cents,
    linkLanding: row.link_landing === 1,
    // Rows read by a statement prepared before migration 0019 lack the column: the default, on.
    selfDelete: row.self_delete !== 0,
    // Rows read by a statement prepared before migration 0024 lack the column: optional, as before.
    mfaRequired: row.mfa_policy === 'required',
    tokenClaims: row.token_claims ?? null,
    // Rows read by a statement prepared before migration 0035 lack the columns: the defaults.
    organizationsEnabled: row.organizations_enabled !== 0,
    orgCreation: row.org_creation === 'server' ? 'server' : 'users',
    emailFrom: row.email_from ?? null,
    replyTo: row.reply_to ?? null,
    // Rows read by a statement prepared before migration 0041 lack the column: host-only.
    cookieDomain: row.cookie_domain ?? null,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    paused: row.tenant_paused === 1,
  };
}

/**
 * Every app lookup of the guards carries the tenant's pause flag in the same query (a LEFT JOIN), so the
 * pause costs no extra query and, never cached, is seen by every node on the next request.
 */
function selectWithPause(db: Db) {
  return db
    .selectFrom('applications')
    .leftJoin('billing_accounts', 'billing_accounts.tenant_id', 'applications.tenant_id')
    .selectAll('applications')
    .select('billing_accounts.paused as tenant_paused')
    .where('applications.deleted_at', 'is', null);
}

export async function insertApplication(db: Db, row: NewApplication): Promise<void> {
  await db.insertInto('applications').values(row).execute();
}

/** The application, or undefined. */
export async function findApplication(db: Db, appId: string): Promise<Application | undefined> {
  const row = await selectWithPause(db).where('applications.id', '=', appId).executeTakeFirst();
  return row && toApplication(row);
}

/** The application whose verified domain is `host` (lower-case, no port), or undefined. */
export async function findApplicationByDomain(db: Db, host: string): Promise<Application | undefined> {
  const row = await selectWithPause(db).where('applications.domain', '=', host).executeTakeFirst();
  return row && toApplication(row);
}

/** The verified domain and cookie domain of every live application but `appId` that has either. */
export async function listDomainScopes(db: Db, appId: string): Promise<{ id: string; domain: string | null; cookieDomain: string | null }[]> {
  const rows = await db
    .selectFrom('applications')
    .select(['id', 'domain', 'cookie_domain'])
    .where('id', '!=', appId)
    .where('deleted_at', 'is', null)
    .where((eb) => eb.or([eb('domain', 'is not', null), eb('cookie_domain', 'is not', null)]))
    .execute();
  return rows.map((row) => ({ id: row.id, domain: row.domain, cookieDomain: row.cookie_domain ?? null }));
}

/** The tenant's live applications (a deleted one is not listed), oldest first. */
export async function listApplicationsOfTenant(db: Db, tenantId: string): Promise<Application[]> {
  const rows = await db.selectFrom('applications').selectAll().where('tenant_id', '=', tenantId).where('deleted_at', 'is', null).orderBy('created_at').execute();
  return rows.map(toApplication);
}

/** Every live application, oldest first (the operator's `app list`). */
export async function listApplications(db: Db): Promise<Application[]> {
  const rows = await db.selectFrom('applications').selectAll().where('deleted_at', 'is', null).orderBy('created_at').execute();
  return rows.map(toApplication);
}

/**
 * Marks the app deleted, frees its verified domain and removes its API keys, in the caller's transaction:
 * from this write on, no key, Host or app id resolves it on any node (each guard lookup reads the database;
 * the statements gated by a key a node presumes check that the key still exists). False when the app is
 * unknown or already marked.
 */
export async function markApplicationDeleted(db: Db, appId: string, now: string): Promise<boolean> {
  const marked = await db
    .updateTable('applications')
    .set({ deleted_at: now, domain: null, updated_at: now })
    .where('id', '=', appId)
    .where('deleted_at', 'is', null)
    .returning('id')
    .executeTakeFirst();
  if (!marked) return false;
  await db.deleteFrom('api_keys').where('app_id', '=', appId).execute();
  return true;
}

/** Whether the app exists and is marked deleted (its purge may still be running). */
export async function isApplicationMarkedDeleted(db: Db, appId: string): Promise<boolean> {
  const row = await db.selectFrom('applications').select('id').where('id', '=', appId).where('deleted_at', 'is not', null).executeTakeFirst();
  return row !== undefined;
}

/** Apps marked deleted whose purge is not finished (the row goes last), oldest mark first. */
export async function listDeletedApplicationIds(db: Db, limit: number): Promise<string[]> {
  const rows = await db.selectFrom('applications').select('id').where('deleted_at', 'is not', null).orderBy('deleted_at').limit(rowLimit(limit)).execute();
  return rows.map((row) => row.id);
}

/** The live apps of a tenant, ids only (a tenant deletion marks each). */
export async function listApplicationIdsOfTenant(db: Db, tenantId: string): Promise<string[]> {
  const rows = await db.selectFrom('applications').select('id').where('tenant_id', '=', tenantId).where('deleted_at', 'is', null).execute();
  return rows.map((row) => row.id);
}

/** The tenant's apps marked deleted and not yet purged (ids). */
export async function listDeletedApplicationIdsOfTenant(db: Db, tenantId: string): Promise<string[]> {
  const rows = await db.selectFrom('applications').select('id').where('tenant_id', '=', tenantId).where('deleted_at', 'is not', null).execute();
  return rows.map((row) => row.id);
}

/** The last row of a purged app: only once nothing refers to it any more. */
export async function deleteApplicationRow(db: Db, appId: string): Promise<void> {
  await db.deleteFrom('applications').where('id', '=', appId).where('deleted_at', 'is not', null).execute();
}

export async function updateApplication(db: Db, appId: string, changes: ApplicationUpdate): Promise<void> {
  await db.updateTable('applications').set(changes).where('id', '=', appId).execute();
}

/**
 * What changes whenever an app's origins may have: every create, update and deletion mark sets updated_at,
 * and a purge changes the count. One row of three aggregates, so a node can ask at every CORS miss.
 */
export async function originsVersion(db: Db): Promise<string> {
  const row = await db
    .selectFrom('applications')
    .select((eb) => [eb.fn.countAll<number | string>().as('rows'), eb.fn.count<number | string>('deleted_at').as('deleted'), eb.fn.max('updated_at').as('latest')])
    .executeTakeFirstOrThrow();
  return `${row.rows}:${row.deleted}:${row.latest ?? ''}`;
}

/** Every app's configured origins and verified domain: the CORS preflight check across apps. */
export async function listAllOrigins(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('applications').select(['allowed_origins', 'domain']).where('deleted_at', 'is', null).execute();
  return rows.flatMap((row) => [...(JSON.parse(row.allowed_origins) as string[]), ...(row.domain ? [`https://${row.domain}`] : [])]);
}

/**
 * The live key (unexpired) of this hash and kind → its application's columns and the tenant's pause: where
 * each query that starts from a key starts (this file's appByKeyQuery, session-auth.ts's two).
 */
export function liveKeyAppQuery(db: QueryCreator<Database>, keyHash: string, kind: 'publishable' | 'secret', now: string) {
  return db
    .selectFrom('api_keys')
    .innerJoin('applications', 'applications.id', 'api_keys.app_id')
    .leftJoin('billing_accounts', 'billing_accounts.tenant_id', 'applications.tenant_id')
    .select(qualified('applications', APPLICATION_COLUMNS))
    .select('billing_accounts.paused as tenant_paused')
    .where('api_keys.key_hash', '=', keyHash)
    .where('api_keys.kind', '=', kind)
    .where((eb) => eb.or([eb('api_keys.expires_at', 'is', null), eb('api_keys.expires_at', '>', now)]));
}

/**
 * The application owning the live key with this hash and kind (one query: every guarded request asks),
 * or undefined for an unknown, expired or wrong-kind key.
 */
const appByKeyQuery = compiledQuery(['keyHash', 'kind', 'now'], (db, v) =>
  liveKeyAppQuery(db, v.keyHash, v.kind as 'publishable' | 'secret', v.now).where('applications.deleted_at', 'is', null),
);

export async function findApplicationByKeyHash(db: Db, keyHash: string, kind: 'publishable' | 'secret', now: string): Promise<Application | undefined> {
  const [row] = await appByKeyQuery(db, { keyHash, kind, now });
  return row && toApplication(row);
}

/**
 * A key the route presumes names an app (the guard has seen it do so: a key never changes apps), to be
 * confirmed by the route's own statement: still live (unexpired, of this kind, of this app) and the
 * tenant not paused. `keyHash` null: the guard already checked the request, the statement checks nothing.
 */
export interface KeyGate {
  appId: string;
  keyHash: string | null;
  now: string;
}

/**
 * The condition a statement gated by a presumed key carries (see KeyGate): true when `keyHash` is null or
 * names a live key of `kind` for the app whose tenant is not paused. One indexed lookup inside the
 * statement instead of the guard's own round trip.
 */
export function liveKeyGate<DB extends Database, TB extends keyof DB>(eb: ExpressionBuilder<DB, TB>, v: KeyGate, kind: 'publishable' | 'secret') {
  const e = eb as unknown as ExpressionBuilder<Database, never>;
  return e.or([
    e(sql`cast(${v.keyHash} as text)`, 'is', null),
    e.exists(
      e
        .selectFrom('api_keys')
        .innerJoin('applications', 'applications.id', 'api_keys.app_id')
        .leftJoin('billing_accounts', 'billing_accounts.tenant_id', 'applications.tenant_id')
        .select(sql`1`.as('live'))
        .where('api_keys.key_hash', '=', v.keyHash as string)
        .where('api_keys.kind', '=', kind)
        .where('api_keys.app_id', '=', v.appId)
        .where((k) => k.or([k('api_keys.expires_at', 'is', null), k('api_keys.expires_at', '>', v.now)]))
        .where((k) => k.or([k('billing_accounts.paused', 'is', null), k('billing_accounts.paused', '=', 0)])),
    ),
  ]);
}

/**
 * liveKeyGate as SQL text: `keyHashSql` and `nowSql` are SQL expressions (a placeholder, a PL/pgSQL
 * variable), `appIdSql` the app id's. Migration 0013 holds it, as this wrote it then, in the PostgreSQL
 * function gh_checked_table_version (the custom-table query's check, planned once per connection there);
 * test/contract/tables-query.test.ts compares the database's copy with this text, so a change here fails
 * until a migration re-creates the function.
 */
export function liveKeyGateSql(keyHashSql: string, nowSql: string, kind: 'publishable' | 'secret', appIdSql: string): string {
  return (
    'exists (select 1 from api_keys k inner join applications a on a.id = k.app_id' +
    ' left join billing_accounts b on b.tenant_id = a.tenant_id' +
    ` where k.key_hash = ${keyHashSql} and k.kind = '${kind}' and k.app_id = ${appIdSql}` +
    ` and (k.expires_at is null or k.expires_at > ${nowSql}) and (b.paused is null or b.paused = 0))`
  );
}

/** The app's custom claims template (a scalar subquery: the session statements read it beside the signing kid). */
export function tokenClaimsStatement(db: QueryCreator<Database>, appId: string) {
  return db.selectFrom('applications').select('token_claims').where('id', '=', appId).limit(rowLimit(1));
}

export const tokenClaimsQuery = compiledQuery(['appId'], (db, v) => tokenClaimsStatement(db, v.appId));
