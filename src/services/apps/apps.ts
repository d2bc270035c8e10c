import { addSeconds, iso, type Clock } from '../../clock.js';
import { newAppId, newPublishableKey, newSecretKey, newTenantId, newUuid, sha256Hex } from '../../crypto/ids.js';
import { badRequest, conflict, notFound } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { isUniqueViolation } from '../../store/dialect.js';
import * as apiKeys from '../../store/repos/api-keys.js';
import * as applications from '../../store/repos/applications.js';
import type { Application } from '../../store/repos/applications.js';
import { findAppObjectsLimit } from '../../store/repos/object-usage.js';
import * as tenants from '../../store/repos/tenants.js';
import { findTablesLimit } from '../../store/repos/custom-tables.js';
import type { ApplicationUpdate } from '../../store/types.js';
import { inTransaction } from '../../store/transaction.js';
import type { KeyRing } from './keys.js';
import { checkCookieDomain, checkDomainScope } from './cookie-domain.js';
import { allowedOriginsOf, parseDomain, parseOrigin } from './origins.js';
import type { AppView } from './records.js';
import { settingsToColumns, type AppSettings } from './settings.js';
import { OPERATOR_CONTEXT, type EventContext } from '../events/types.js';
import { recordAppEvent, recordTenantEvent } from '../management/events.js';
import { answering } from '../db-errors.js';

export type { AppSettings, AppView };

export interface AppsDeps {
  db: Db;
  clock: Clock;
  keys: KeyRing;
  /** PUBLIC_BASE_URL: no app's domain or cookie domain may take Gatehouse's own host (cookie-domain.ts); the CLI and the server pass it. */
  config?: { publicBaseUrl: string };
  /** Not read: an app is shown with its settings as stored (null follows the server's HASHCASH_ENABLED). */
  hashcashEnabled?: boolean;
}

export interface TenantView {
  tenant_id: string;
  name: string;
  created_at: string;
}

/** Creates a tenant. */
export async function createTenant(deps: AppsDeps, name: string, context: EventContext = OPERATOR_CONTEXT): Promise<TenantView> {
  if (!name.trim()) throw badRequest('name must not be empty');
  const at = deps.clock.now();
  const row = { id: newTenantId(), name: name.trim(), created_at: iso(at) };
  await inTransaction(deps.db, async (trx) => {
    await tenants.insertTenant(trx, row);
    await recordTenantEvent(trx, context, row.id, 'tenant.created', { name: row.name }, at);
  });
  return { tenant_id: row.id, name: row.name, created_at: row.created_at };
}

/** A domain that another application has verified already is a 409, not a fault. */
const withUniqueDomain = <T>(work: () => Promise<T>): Promise<T> =>
  answering(isUniqueViolation, () => conflict('that domain is already verified for another application'), work);

/** Creates an application with its publishable key, secret key (shown once) and first signing key. */
export async function createApp(deps: AppsDeps, tenantId: string, name: string, settings: AppSettings, context: EventContext = OPERATOR_CONTEXT): Promise<AppView> {
  if (!name.trim()) throw badRequest('name must not be empty');
  if (!(await tenants.findLiveTenant(deps.db, tenantId))) throw notFound(`tenant ${tenantId} not found`);
  const columns = settingsToColumns(settings);
  checkCookieDomain(columns.domain ?? null, columns.cookie_domain ?? null);
  const at = deps.clock.now();
  const now = iso(at);
  const appId = newAppId();
  const publishableKey = newPublishableKey();
  const secretKey = newSecretKey();
  await withUniqueDomain(() =>
    inTransaction(deps.db, async (trx) => {
      await checkDomainScope(trx, deps.config?.publicBaseUrl, { id: appId, domain: columns.domain ?? null, cookieDomain: (columns.cookie_domain as string | null | undefined) ?? null });
      await insertApp(trx, deps, { tenantId, appId, name: name.trim(), columns, now, publishableKey, secretKey });
      await recordTenantEvent(trx, context, tenantId, 'app.created', { app_id: appId, name: name.trim() }, at);
    }),
  );
  return { ...(await describeApp(deps, appId)), secret_key: secretKey };
}

/** The rows of a new app: the app, its two keys and its first signing key, in the caller's transaction. */
export async function insertApp(
  trx: Db,
  deps: Pick<AppsDeps, 'keys'>,
  app: { tenantId: string; appId: string; name: string; columns: ApplicationUpdate; now: string; publishableKey: string; secretKey: string },
): Promise<void> {
  await applications.insertApplication(trx, {
    id: app.appId,
    tenant_id: app.tenantId,
    name: app.name,
    domain: app.columns.domain ?? null,
    allowed_origins: (app.columns.allowed_origins as string | undefined) ?? '[]',
    verification_method: (app.columns.verification_method as AppView['verification_method'] | undefined) ?? 'code',
    passwords_enabled: (app.columns.passwords_enabled as number | undefined) ?? 1,
    hashcash_enabled: (app.columns.hashcash_enabled as number | undefined) ?? null,
    hashcash_difficulty: (app.columns.hashcash_difficulty as number | undefined) ?? 6,
    bot_min_usd_cents: (app.columns.bot_min_usd_cents as number | undefined) ?? 100,
    link_landing: (app.columns.link_landing as number | undefined) ?? 0,
    self_delete: (app.columns.self_delete as number | undefined) ?? 1,
    mfa_policy: (app.columns.mfa_policy as 'required' | null | undefined) ?? null,
    tables_limit_bytes: (app.columns.tables_limit_bytes as number | null | undefined) ?? null,
    objects_limit_bytes: (app.columns.objects_limit_bytes as number | null | undefined) ?? null,
    token_claims: (app.columns.token_claims as string | null | undefined) ?? null,
    organizations_enabled: (app.columns.organizations_enabled as number | undefined) ?? 1,
    org_creation: (app.columns.org_creation as 'users' | 'server' | undefined) ?? 'users',
    email_from: (app.columns.email_from as string | null | undefined) ?? null,
    reply_to: (app.columns.reply_to as string | null | undefined) ?? null,
    cookie_domain: (app.columns.cookie_domain as string | null | undefined) ?? null,
    created_at: app.now,
    updated_at: app.now,
  });
  for (const [kind, key] of [['publishable', app.publishableKey], ['secret', app.secretKey]] as const) {
    await apiKeys.insertApiKey(trx, {
      id: newUuid(),
      app_id: app.appId,
      kind,
      key_hash: sha256Hex(key),
      publishable_key: kind === 'publishable' ? key : null,
      key_end: kind === 'secret' ? key.slice(-4) : null,
      created_at: app.now,
      expires_at: null,
    });
  }
  await deps.keys.rotate(trx, app.appId);
}

/** Changes the app's settings; omitted settings stay as they are. */
export async function updateApp(deps: AppsDeps, appId: string, settings: AppSettings & { name?: string }, context: EventContext = OPERATOR_CONTEXT): Promise<AppView> {
  const app = await requireApp(deps.db, appId);
  const columns = settingsToColumns(settings);
  if (settings.name !== undefined) {
    if (!settings.name.trim()) throw badRequest('name must not be empty');
    columns.name = settings.name.trim();
  }
  // The names `app show --json` prints: allowedOrigins and its add/remove flags are allowed_origins.
  const snake = (key: string) => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`).replace(/^(add|remove)_/, '');
  const changed = [...new Set(Object.keys(settings).filter((key) => settings[key as keyof typeof settings] !== undefined).map(snake))];
  const at = deps.clock.now();
  columns.updated_at = iso(at);
  const add = settings.addAllowedOrigins?.map(parseOrigin) ?? [];
  const remove = new Set(settings.removeAllowedOrigins?.map(parseOrigin) ?? []);
  await withUniqueDomain(() =>
    inTransaction(deps.db, async (trx) => {
      // The first write takes the row's lock, so two edits of the list at once each see the other's result.
      await applications.updateApplication(trx, appId, columns);
      // The two settings' rule, on the row as this write left it (a refusal rolls the write back).
      if (columns.domain !== undefined || columns.cookie_domain !== undefined) {
        const written = await requireApp(trx, appId);
        checkCookieDomain(written.domain, written.cookieDomain);
        await checkDomainScope(trx, deps.config?.publicBaseUrl, written);
      }
      await recordAppEvent(trx, context, app, 'app.updated', { changed }, at);
      if (add.length === 0 && remove.size === 0) return;
      const current = (await requireApp(trx, appId)).allowedOrigins;
      const origins = [...new Set([...current, ...add])].filter((origin) => !remove.has(origin));
      await applications.updateApplication(trx, appId, { allowed_origins: JSON.stringify(origins) });
    }),
  );
  return describeApp(deps, appId);
}

/** A new signing key, used at once; the old one stays published while its tokens may live. */
export async function rotateSigningKey(deps: AppsDeps, appId: string, context: EventContext = OPERATOR_CONTEXT): Promise<AppView> {
  const app = await requireApp(deps.db, appId);
  await inTransaction(deps.db, async (trx) => {
    await deps.keys.rotate(trx, appId);
    await recordAppEvent(trx, context, app, 'app.signing_key_rotated', {}, deps.clock.now());
  });
  return describeApp(deps, appId);
}

export interface RotatedSecret extends AppView {
  secret_key: string;
  /** When the previous secret key stops working (now, or after the grace); null when none was live. */
  old_secret_key_expires_at: string | null;
  /** The previous key's last 4 characters, to tell it apart; null when none was live or it predates their keeping. */
  old_secret_key_end: string | null;
}

/** A new secret key; the old ones die now, or after `keepOldForSeconds`. */
export async function rotateSecretKey(deps: AppsDeps, appId: string, keepOldForSeconds = 0, context: EventContext = OPERATOR_CONTEXT): Promise<RotatedSecret> {
  const app = await requireApp(deps.db, appId);
  const now = deps.clock.now();
  const endsAt = iso(addSeconds(now, keepOldForSeconds));
  const secretKey = newSecretKey();
  const ended = await inTransaction(deps.db, async (trx) => {
    const old = await apiKeys.expireSecretKeys(trx, appId, endsAt);
    await apiKeys.insertApiKey(trx, {
      id: newUuid(),
      app_id: appId,
      kind: 'secret',
      key_hash: sha256Hex(secretKey),
      publishable_key: null,
      key_end: secretKey.slice(-4),
      created_at: iso(now),
      expires_at: null,
    });
    await recordAppEvent(trx, context, app, 'app.secret_key_rotated', { old_key_expires_at: old.length ? endsAt : null }, now);
    return old;
  });
  const newest = ended.sort((a, b) => b.created_at.localeCompare(a.created_at))[0];
  return {
    ...(await describeApp(deps, appId)),
    secret_key: secretKey,
    old_secret_key_expires_at: newest ? endsAt : null,
    old_secret_key_end: newest?.key_end ?? null,
  };
}

export async function requireApp(db: Db, appId: string): Promise<Application> {
  const app = await applications.findApplication(db, appId);
  if (!app) throw notFound(`application ${appId} not found`);
  return app;
}

/** Whether sign-up on this app needs proof-of-work: its own setting, else HASHCASH_ENABLED. */
export const hashcashRequired = (app: Application, hashcashEnabled: boolean) => app.hashcashEnabled ?? hashcashEnabled;

export async function describeApp(deps: AppsDeps, appId: string): Promise<AppView> {
  const app = await requireApp(deps.db, appId);
  return {
    app_id: app.id,
    tenant_id: app.tenantId,
    name: app.name,
    publishable_key: (await apiKeys.findPublishableKey(deps.db, app.id)) ?? '',
    domain: app.domain,
    allowed_origins: allowedOriginsOf(app),
    verification_method: app.verificationMethod,
    passwords_enabled: app.passwordsEnabled,
    hashcash_enabled: app.hashcashEnabled,
    hashcash_difficulty: app.hashcashDifficulty,
    bot_min_usd: app.botMinUsdCents / 100,
    link_landing: app.linkLanding,
    self_delete: app.selfDelete,
    mfa: app.mfaRequired ? 'required' : 'optional',
    tables_limit_bytes: await findTablesLimit(deps.db, app.id),
    objects_limit_bytes: await findAppObjectsLimit(deps.db, app.id),
    token_claims: app.tokenClaims === null ? null : (JSON.parse(app.tokenClaims) as Record<string, string>),
    organizations_enabled: app.organizationsEnabled,
    org_creation: app.orgCreation,
    email_from: app.emailFrom,
    reply_to: app.replyTo,
    cookie_domain: app.cookieDomain,
    signing_key_id: (await deps.keys.currentKid(app.id)) ?? null,
    created_at: app.createdAt,
    updated_at: app.updatedAt,
  };
}

/** The live app with this id, or undefined (a deleted one is not found). */
export const findApp = (deps: Pick<AppsDeps, 'db'>, appId: string): Promise<Application | undefined> => applications.findApplication(deps.db, appId);
