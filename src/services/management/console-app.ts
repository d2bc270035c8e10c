import { addSeconds, iso, type Clock } from '../../clock.js';
import { newAppId, newPublishableKey, newSecretKey, newTenantId, randomBase62, sha256Hex } from '../../crypto/ids.js';
import { badRequest, notFound } from '../../errors.js';
import type { Db } from '../../store/db.js';
import * as consoleRepo from '../../store/repos/console.js';
import { findSetting, insertSettingIfAbsent } from '../../store/repos/settings.js';
import { insertTenant } from '../../store/repos/tenants.js';
import { findUserByEmail } from '../../store/repos/users.js';
import { inTransaction } from '../../store/transaction.js';
import { describeApp, insertApp, type AppsDeps } from '../apps/apps.js';
import { OPERATOR_CONTEXT, type EventContext } from '../events/types.js';
import { CONSOLE_APP_SETTING, findConsoleAppId, grantOperator, revokeOperator } from './console-users.js';

// The built-in console app (docs/management.md): made once, by `migrate` (and by `serve`, which migrates
// first), in the system tenant that is never listed to tenants. Its users are the console's users; the
// operator names some of them operators, or the first-run setup link makes the first one.

/** A setup link lives 24 hours. */
const SETUP_LINK_SECONDS = 24 * 3600;

/**
 * Creates the system tenant and the console app unless they exist; answers the console app's id. The
 * setting row is claimed first in the same transaction: two nodes migrating at once make one app.
 */
export async function ensureConsoleApp(deps: Pick<AppsDeps, 'db' | 'clock' | 'keys'>): Promise<string> {
  const existing = await findSetting(deps.db, CONSOLE_APP_SETTING);
  if (existing) return existing;
  const appId = newAppId();
  const now = iso(deps.clock.now());
  const made = await inTransaction(deps.db, async (trx) => {
    if (!(await insertSettingIfAbsent(trx, CONSOLE_APP_SETTING, appId, now))) return false;
    const tenantId = newTenantId();
    await insertTenant(trx, { id: tenantId, name: 'Gatehouse (system)', created_at: now, system: 1 });
    // Every app default: code verification, passwords on, hashcash as HASHCASH_ENABLED says.
    await insertApp(trx, deps, { tenantId, appId, name: 'Gatehouse console', columns: {}, now, publishableKey: newPublishableKey(), secretKey: newSecretKey() });
    return true;
  });
  return made ? appId : ((await findSetting(deps.db, CONSOLE_APP_SETTING)) as string);
}

export { findConsoleAppId };

async function requireConsoleAppId(db: Db): Promise<string> {
  const id = await findConsoleAppId(db);
  if (!id) throw notFound('the console app is not made yet: run gatehouse migrate');
  return id;
}

/** `gatehouse console info`: what a client of the console signs in with. */
export async function consoleInfo(deps: AppsDeps, publicBaseUrl: string): Promise<{ app_id: string; publishable_key: string; url: string }> {
  const app = await describeApp(deps, await requireConsoleAppId(deps.db));
  return { app_id: app.app_id, publishable_key: app.publishable_key, url: `${publicBaseUrl.replace(/\/$/, '')}/console/` };
}

/** A fresh setup link (single use, 24 h); only the token's hash is stored. */
export async function newSetupLink(deps: { db: Db; clock: Clock }, publicBaseUrl: string): Promise<{ url: string; expires_at: string }> {
  const token = `cst_${randomBase62(43)}`;
  const now = deps.clock.now();
  const expiresAt = iso(addSeconds(now, SETUP_LINK_SECONDS));
  await consoleRepo.insertSetupToken(deps.db, sha256Hex(token), iso(now), expiresAt);
  return { url: `${publicBaseUrl.replace(/\/$/, '')}/console/setup?token=${token}`, expires_at: expiresAt };
}

/** A setup link when no console user is an operator (ADMIN_TOKEN does not count), else undefined. */
export async function setupLinkIfNoOperator(deps: { db: Db; clock: Clock }, publicBaseUrl: string): Promise<string | undefined> {
  if ((await consoleRepo.countOperators(deps.db)) > 0) return undefined;
  return (await newSetupLink(deps, publicBaseUrl)).url;
}

/**
 * The setup page's last step: consumes the token in one conditional write and makes the signed-in console
 * user an operator, in one transaction. A used, expired or unknown token → 400.
 */
export async function completeSetup(deps: { db: Db; clock: Clock }, userId: string, token: string, context: EventContext): Promise<{ user_id: string; operator: true }> {
  const at = deps.clock.now();
  const done = await inTransaction(deps.db, async (trx) => {
    if (!(await consoleRepo.consumeSetupToken(trx, sha256Hex(token), iso(at)))) return false;
    await grantOperator(trx, context, userId, at, { via: 'setup_link' });
    return true;
  });
  if (!done) throw badRequest('this setup link is used, expired or unknown: run gatehouse console setup-link for a fresh one', 'invalid_token');
  return { user_id: userId, operator: true };
}

async function consoleUserByEmail(db: Db, email: string) {
  const user = await findUserByEmail(db, await requireConsoleAppId(db), email);
  if (!user) throw notFound(`no console user has the email ${email}: they sign up at the console first`);
  return user;
}

/** `gatehouse operator add --email E`: the console user with that email becomes an operator (an `operator.added` event). */
export async function addOperator(deps: { db: Db; clock: Clock }, email: string, context: EventContext = OPERATOR_CONTEXT): Promise<{ user_id: string; email: string | null }> {
  const user = await consoleUserByEmail(deps.db, email);
  const at = deps.clock.now();
  await inTransaction(deps.db, (trx) => grantOperator(trx, context, user.id, at));
  return { user_id: user.id, email: user.email };
}

/** `gatehouse operator remove --email E` (an `operator.removed` event when they were one). */
export async function removeOperator(deps: { db: Db; clock: Clock }, email: string, context: EventContext = OPERATOR_CONTEXT): Promise<{ user_id: string; removed: boolean }> {
  const user = await consoleUserByEmail(deps.db, email);
  const at = deps.clock.now();
  return { user_id: user.id, removed: await inTransaction(deps.db, (trx) => revokeOperator(trx, context, user.id, at)) };
}

/** `gatehouse operator list`. */
export async function listOperators(deps: { db: Db }): Promise<{ operators: { user_id: string; email: string | null; created_at: string }[] }> {
  return { operators: await consoleRepo.listOperators(deps.db, await requireConsoleAppId(deps.db)) };
}
