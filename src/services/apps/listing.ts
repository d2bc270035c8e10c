import { iso } from '../../clock.js';
import { notFound } from '../../errors.js';
import * as apiKeys from '../../store/repos/api-keys.js';
import * as applications from '../../store/repos/applications.js';
import * as tenants from '../../store/repos/tenants.js';
import { describeApp, type AppsDeps, type AppView, type TenantView } from './apps.js';

// What the operator's `tenant list|show` and `app list|show` print (docs/operations.md): settings as
// stored, where null means the server's default. Deleted tenants and apps are not listed.

export interface TenantDetail extends TenantView {
  apps: { app_id: string; name: string }[];
}

/** Every live tenant, oldest first. */
export async function listTenants(deps: Pick<AppsDeps, 'db'>): Promise<{ tenants: TenantView[] }> {
  const rows = await tenants.listTenants(deps.db);
  return { tenants: rows.map((row) => ({ tenant_id: row.id, name: row.name, created_at: row.created_at })) };
}

/** The live tenant with its apps; 404 when unknown or deleted. */
export async function showTenant(deps: Pick<AppsDeps, 'db'>, tenantId: string): Promise<TenantDetail> {
  const row = await tenants.findLiveTenant(deps.db, tenantId);
  if (!row) throw notFound(`tenant ${tenantId} not found`);
  const apps = await applications.listApplicationsOfTenant(deps.db, tenantId);
  return { tenant_id: row.id, name: row.name, created_at: row.created_at, apps: apps.map((app) => ({ app_id: app.id, name: app.name })) };
}

export interface AppSummary {
  app_id: string;
  tenant_id: string;
  name: string;
  domain: string | null;
  created_at: string;
}

/** Live apps, of one tenant (404 when it is unknown or deleted) or of all, oldest first. */
export async function listApps(deps: Pick<AppsDeps, 'db'>, tenantId?: string): Promise<{ apps: AppSummary[] }> {
  if (tenantId !== undefined && !(await tenants.findLiveTenant(deps.db, tenantId))) throw notFound(`tenant ${tenantId} not found`);
  const rows = tenantId === undefined ? await applications.listApplications(deps.db) : await applications.listApplicationsOfTenant(deps.db, tenantId);
  return { apps: rows.map((app) => ({ app_id: app.id, tenant_id: app.tenantId, name: app.name, domain: app.domain, created_at: app.createdAt })) };
}

export interface AppDetail extends AppView {
  /** The secret keys that still work, by their last 4 characters (null for keys made before these were kept). */
  secret_keys: { key_end: string | null; created_at: string; expires_at: string | null }[];
}

/** The app with its settings as stored and its working secret keys; 404 when unknown or deleted. */
export async function showApp(deps: AppsDeps, appId: string): Promise<AppDetail> {
  const app = await describeApp(deps, appId);
  return { ...app, secret_keys: await apiKeys.listLiveSecretKeys(deps.db, appId, iso(deps.clock.now())) };
}
