import type { Deps } from '../../deps.js';
import type { Guards } from '../plugins/guards.js';
import type { Http } from '../types.js';
import { challengeRoutes } from './auth/challenges.js';
import { sessionRoutes } from './auth/session.js';
import { signinRoutes } from './auth/signins.js';
import { signupRoutes } from './auth/signups.js';
import { verifyRoutes } from './auth/verify.js';
import { emailLinkRoutes } from './auth/email-links.js';
import { botRoutes } from './bots.js';
import { bucketRoutes } from './buckets.js';
import { consoleUiRoutes } from './console-ui.js';
import { objectRoutes } from './objects.js';
import { docsRoutes } from './docs.js';
import { healthRoutes } from './health.js';
import { jwksRoutes } from './jwks.js';
import { oauthRoutes } from './oauth/index.js';
import { ssoRoutes } from './sso.js';
import { tableRoutes } from './tables.js';
import { userRoutes } from './users.js';
import { eventRoutes } from './events.js';
import { userDeletionRoutes } from './user-deletion.js';
import { userSessionRoutes } from './user-sessions.js';
import { userImportRoutes } from './user-import.js';
import { billingRoutes } from './billing.js';
import { meAccountRoutes } from './account/me-account.js';
import { meSessionRoutes } from './account/me-sessions.js';
import { passwordResetRoutes } from './account/password-resets.js';
import { mfaVerifyRoutes } from './mfa/verify.js';
import { myFactorRoutes } from './mfa/my-factors.js';
import { userFactorRoutes } from './mfa/user-factors.js';
import { passkeyRoutes } from './mfa/passkeys.js';
import { organizationRoutes } from './organizations/organizations.js';
import { organizationMemberRoutes } from './organizations/members.js';
import { organizationRoleRoutes } from './organizations/roles.js';
import { activeOrganizationRoutes } from './organizations/active.js';
import { webhookRoutes } from './webhooks/index.js';
import { managementAppRoutes } from './management/apps.js';
import { managementConsoleRoutes } from './management/console.js';
import { managementEmailTemplateRoutes } from './management/email-templates.js';
import { managementInvitationRoutes } from './management/invitations.js';
import { managementTenantRoutes } from './management/tenants.js';

/** Every route module, one per spec part, registered explicitly. */
export function registerRoutes(app: Http, deps: Deps, guards: Guards): void {
  healthRoutes(app, deps);
  jwksRoutes(app, deps);
  docsRoutes(app);
  // The console's pages (docs/console.md)
  consoleUiRoutes(app, deps);
  // 4.1 sign-up and sign-in
  challengeRoutes(app, deps, guards);
  signupRoutes(app, deps, guards);
  signinRoutes(app, deps, guards);
  verifyRoutes(app, deps, guards);
  sessionRoutes(app, deps, guards);
  // Account self-service (docs/account.md)
  passwordResetRoutes(app, deps, guards);
  meAccountRoutes(app, deps, guards);
  meSessionRoutes(app, deps, guards);
  // Second factors (docs/mfa.md)
  mfaVerifyRoutes(app, deps, guards);
  myFactorRoutes(app, deps, guards);
  userFactorRoutes(app, deps, guards);
  passkeyRoutes(app, deps, guards);
  // 4.3 SSO, 4.4 bots, 4.5 users and sessions
  ssoRoutes(app, deps, guards);
  botRoutes(app, deps, guards);
  userRoutes(app, deps, guards);
  userDeletionRoutes(app, deps, guards);
  userSessionRoutes(app, deps, guards);
  // Events (docs/events.md)
  eventRoutes(app, deps, guards);
  userImportRoutes(app, deps, guards);
  // 4.9 billing
  billingRoutes(app, deps, guards);
  // 4.2 OAuth
  oauthRoutes(app, deps, guards);
  emailLinkRoutes(app, deps, guards);
  // 4.7 custom tables
  tableRoutes(app, deps, guards);
  // 4.8 object storage
  bucketRoutes(app, deps, guards);
  objectRoutes(app, deps, guards);
  // Organisations (docs/organizations.md)
  organizationRoutes(app, deps, guards);
  organizationMemberRoutes(app, deps, guards);
  organizationRoleRoutes(app, deps, guards);
  activeOrganizationRoutes(app, deps, guards);
  // Webhooks (docs/webhooks.md)
  webhookRoutes(app, deps, guards);
  // Tenant self-service: the Management API (docs/management.md)
  managementTenantRoutes(app, deps, guards);
  managementInvitationRoutes(app, deps, guards);
  managementAppRoutes(app, deps, guards);
  managementConsoleRoutes(app, deps, guards);
  managementEmailTemplateRoutes(app, deps, guards);
}
