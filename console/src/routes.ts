// Every page of the console, in one table (docs/console.md, "Adding a page"): a path under /console
// (':name' parts become params), the page's <h1>, its component (one file in pages/), and, for pages of a
// tenant (paths under /t/:tenant), the nav label. <App> matches the address against this list in order.
import type { FunctionComponent } from 'preact';
import type { Tenant } from './store.js';
import { AcceptPage } from './pages/accept.js';
import { AccountPage } from './pages/account.js';
import { ActivityPage } from './pages/activity.js';
import { AppKeysPage } from './pages/app-keys.js';
import { AppPage } from './pages/app.js';
import { AppsPage } from './pages/apps.js';
import { AppEventsPage, TenantEventsPage } from './pages/events.js';
import { ImportPage } from './pages/import.js';
import { BucketPage } from './pages/bucket.js';
import { BucketsPage } from './pages/buckets.js';
import { MembersPage } from './pages/members.js';
import { OrganizationPage } from './pages/organization.js';
import { OrganizationsPage } from './pages/organizations.js';
import { BillingPage } from './pages/billing.js';
import { EmailPage } from './pages/email.js';
import { ProvidersPage } from './pages/providers.js';
import { SetupPage } from './pages/setup.js';
import { TablePage } from './pages/table.js';
import { TablesPage } from './pages/tables.js';
import { TenantSettingsPage } from './pages/tenant-settings.js';
import { TenantsPage } from './pages/tenants.js';
import { TokensPage } from './pages/tokens.js';
import { UserPage } from './pages/user.js';
import { UsersPage } from './pages/users.js';
import { WebhookPage } from './pages/webhooks/endpoint.js';
import { WebhooksPage } from './pages/webhooks.js';

export interface PageProps {
  params: Record<string, string>;
  query: URLSearchParams;
  /** The tenant of a /t/:tenant/... page, with the member's role (undefined elsewhere). */
  tenant?: Tenant;
}

export interface PageRoute {
  path: string;
  title: string;
  page: FunctionComponent<PageProps>;
  /** The label in the tenant's nav (pages of a tenant only). */
  nav?: string;
  /** The label in an app's own nav (pages under /t/:tenant/apps/:app only), shown above the page's title. */
  appNav?: string;
  /** Signed out, this page offers the sign-up first, with this line above it. */
  signUpIntro?: string;
}

export const ROUTES: PageRoute[] = [
  { path: '/', title: 'Tenants', page: TenantsPage },
  { path: '/setup', title: 'Set up Gatehouse', page: SetupPage, signUpIntro: 'Create the account of the first operator: it reaches every tenant.' },
  { path: '/accept', title: 'Accept an invitation', page: AcceptPage, signUpIntro: 'Sign up (or sign in) with the address the invitation was sent to.' },
  { path: '/account', title: 'Your account', page: AccountPage },
  { path: '/t/:tenant/apps', title: 'Apps', page: AppsPage, nav: 'Apps' },
  { path: '/t/:tenant/apps/:app', title: 'App settings', page: AppPage, appNav: 'App settings' },
  { path: '/t/:tenant/apps/:app/keys', title: 'App keys', page: AppKeysPage, appNav: 'Keys' },
  { path: '/t/:tenant/members', title: 'Members and invitations', page: MembersPage, nav: 'Members' },
  { path: '/t/:tenant/tokens', title: 'API tokens', page: TokensPage, nav: 'API tokens' },
  { path: '/t/:tenant/events', title: 'Tenant events', page: TenantEventsPage, nav: 'Events' },
  { path: '/t/:tenant/billing', title: 'Billing', page: BillingPage, nav: 'Billing' },
  { path: '/t/:tenant/settings', title: 'Tenant settings', page: TenantSettingsPage, nav: 'Settings' },
  { path: '/t/:tenant/apps/:app/users', title: 'Users', page: UsersPage, appNav: 'Users' },
  { path: '/t/:tenant/apps/:app/import', title: 'Import users', page: ImportPage, appNav: 'Import' },
  { path: '/t/:tenant/apps/:app/webhooks', title: 'Webhooks', page: WebhooksPage, appNav: 'Webhooks' },
  { path: '/t/:tenant/apps/:app/webhooks/:webhook', title: 'Webhook endpoint', page: WebhookPage },
  { path: '/t/:tenant/apps/:app/organizations', title: 'Organisations', page: OrganizationsPage, appNav: 'Organisations' },
  { path: '/t/:tenant/apps/:app/organizations/:org', title: 'Organisation', page: OrganizationPage },
  { path: '/t/:tenant/apps/:app/events', title: 'Events', page: AppEventsPage, appNav: 'Events' },
  { path: '/t/:tenant/apps/:app/activity', title: 'Activity', page: ActivityPage, appNav: 'Activity' },
  { path: '/t/:tenant/apps/:app/tables', title: 'Tables', page: TablesPage, appNav: 'Tables' },
  { path: '/t/:tenant/apps/:app/tables/:table', title: 'Table', page: TablePage },
  { path: '/t/:tenant/apps/:app/buckets', title: 'Buckets', page: BucketsPage, appNav: 'Buckets' },
  { path: '/t/:tenant/apps/:app/buckets/:bucket', title: 'Bucket', page: BucketPage },
  { path: '/t/:tenant/apps/:app/providers', title: 'Sign-in providers', page: ProvidersPage, appNav: 'Sign-in providers' },
  { path: '/t/:tenant/apps/:app/email', title: 'Email templates', page: EmailPage, appNav: 'Email templates' },
  { path: '/t/:tenant/apps/:app/users/:user', title: 'User', page: UserPage },
];

/** The route of `path` and its params, or undefined (the not-found view). */
export function findRoute(path: string, match: (pattern: string, path: string) => Record<string, string> | undefined) {
  for (const route of ROUTES) {
    const params = match(route.path, path);
    if (params) return { route, params };
  }
  return undefined;
}
