import { forbidden, notFound } from '../../errors.js';
import * as apps from '../apps/apps.js';
import { markAppDeleted, type DeletionMark } from '../apps/deletion.js';
import { listApplicationsOfTenant } from '../../store/repos/applications.js';
import type { EventContext } from '../events/types.js';
import { requireRight, type ConsoleCaller, type Right } from './roles.js';

// Apps through the Management API (docs/management.md): the same services as `gatehouse app ...`
// (services/apps/), behind the caller's role in the app's tenant.

/** The app and the caller's right in its tenant; an app of a tenant the caller is not in → 404. */
export async function appFor(deps: apps.AppsDeps, caller: ConsoleCaller, appId: string, right: Right): Promise<void> {
  const app = await apps.findApp(deps, appId);
  if (!app) throw notFound(`application ${appId} not found`);
  try {
    await requireRight(deps.db, caller, app.tenantId, right);
  } catch (error) {
    // The tenant's 404 names the tenant: say "application" instead, as for an unknown one.
    if ((error as { status?: number }).status === 404) throw notFound(`application ${appId} not found`);
    throw error;
  }
}

/**
 * `domain` and `cookie_domain` are the operator's (the CLI, ADMIN_TOKEN, an operator's console session):
 * nothing proves yet that a tenant controls a domain it names (docs/management.md, "Domains").
 */
function refuseDomainSettings(caller: ConsoleCaller, settings: apps.AppSettings): void {
  if (caller.operator || (settings.domain === undefined && settings.cookieDomain === undefined)) return;
  throw forbidden('domain and cookie_domain are set by the server operator only (docs/management.md, "Domains")', 'operator_only_setting');
}

/** The tenant's live apps, each as `gatehouse app show --json` prints it (secret keys never). */
export async function listAppsOf(deps: apps.AppsDeps, caller: ConsoleCaller, tenantId: string): Promise<{ apps: apps.AppView[] }> {
  await requireRight(deps.db, caller, tenantId, 'read');
  const rows = await listApplicationsOfTenant(deps.db, tenantId);
  return { apps: await Promise.all(rows.map((row) => apps.describeApp(deps, row.id))) };
}

/** As `gatehouse app create --json`: the app with its publishable key and its secret key, shown once. */
export async function createAppIn(deps: apps.AppsDeps, caller: ConsoleCaller, tenantId: string, name: string, settings: apps.AppSettings, context: EventContext): Promise<apps.AppView> {
  await requireRight(deps.db, caller, tenantId, 'write');
  refuseDomainSettings(caller, settings);
  return apps.createApp(deps, tenantId, name, settings, context);
}

export async function showAppTo(deps: apps.AppsDeps, caller: ConsoleCaller, appId: string): Promise<apps.AppView> {
  await appFor(deps, caller, appId, 'read');
  return apps.describeApp(deps, appId);
}

export async function updateAppOf(deps: apps.AppsDeps, caller: ConsoleCaller, appId: string, settings: apps.AppSettings & { name?: string }, context: EventContext): Promise<apps.AppView> {
  await appFor(deps, caller, appId, 'write');
  refuseDomainSettings(caller, settings);
  return apps.updateApp(deps, appId, settings, context);
}

export async function deleteAppOf(deps: apps.AppsDeps, caller: ConsoleCaller, appId: string, context: EventContext): Promise<DeletionMark> {
  await appFor(deps, caller, appId, 'write');
  return markAppDeleted(deps, appId, context);
}

/** As `gatehouse app rotate-secret`: the new secret key (shown once) and when the old one stops working. */
export async function rotateSecretOf(deps: apps.AppsDeps, caller: ConsoleCaller, appId: string, keepOldForSeconds: number, context: EventContext): Promise<{ secret_key: string; old_key_expires_at: string | null }> {
  await appFor(deps, caller, appId, 'write');
  const rotated = await apps.rotateSecretKey(deps, appId, keepOldForSeconds, context);
  return { secret_key: rotated.secret_key, old_key_expires_at: rotated.old_secret_key_expires_at };
}

/** As `gatehouse app rotate-keys`: the new signing key's id. */
export async function rotateSigningKeyOf(deps: apps.AppsDeps, caller: ConsoleCaller, appId: string, context: EventContext): Promise<{ kid: string }> {
  await appFor(deps, caller, appId, 'write');
  const rotated = await apps.rotateSigningKey(deps, appId, context);
  return { kid: rotated.signing_key_id ?? '' };
}
