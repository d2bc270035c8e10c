import type { ApiKeysTable, ApplicationsTable, JobLocksTable, MigrationCompatibilityTable, NodeReleasesTable, SettingsTable, SigningKeysTable, TenantsTable } from './apps.js';
import type { ActiveUserCountsTable, ActiveUsersTable, BotAuthReplaysTable, DonationChallengesUsedTable, EmailChallengesTable, HashcashSpentTable, RefreshTokensTable, SessionsTable, SsoTokensTable, UserCountsTable, UsersTable } from './users.js';
import type { MfaChallengesTable, MfaFactorsTable, MfaRecoveryCodesTable, WebauthnChallengesTable } from './mfa.js';
import type { OAuthIdentitiesTable, OAuthProvidersTable, OAuthStatesTable } from './oauth.js';
import type { BillingAccountsTable, BillingLedgerTable, BillingTopupsTable, BillingUsageChargesTable } from './billing.js';
import type { CustomColumnsTable, CustomTableUsageTable, CustomTablesTable } from './custom-tables.js';
import type { BlobDeletionsTable, BucketUserUsageTable, BucketsTable, ObjectStorageUsageTable, ObjectUploadsTable, ObjectsTable } from './objects.js';
import type { EmailTemplatesTable, MailOutboxTable } from './mail.js';
import type { EventCountsTable, EventsTable } from './events.js';
import type { OrganizationInvitationsTable, OrganizationMembersTable, OrganizationRolesTable, OrganizationsTable, OrganizationUserCountsTable } from './organizations.js';
import type { WebhookDeliveriesTable, WebhookEndpointCountsTable, WebhookEndpointTypesTable, WebhookEndpointsTable } from './webhooks.js';
import type { ConsoleOperatorsTable, ConsoleSetupTokensTable, TenantApiTokensTable, TenantInvitationsTable, TenantMembersTable } from './management.js';

// The schema as Kysely sees it, one declaration per table (in the file of its area, its row types beside
// it), listed here once.
// Portable across SQLite and PostgreSQL: timestamps are ISO 8601 UTC text (lexicographic order = time
// order), booleans are 0/1 integers, JSON is text. Converters in the repositories turn rows into domain
// values. A migration that adds a column adds it to its table's declaration, with the migration named.

export * from './apps.js';
export * from './users.js';
export * from './mfa.js';
export * from './oauth.js';
export * from './billing.js';
export * from './custom-tables.js';
export * from './objects.js';
export * from './mail.js';
export * from './events.js';
export * from './organizations.js';
export * from './webhooks.js';
export * from './management.js';

export interface Database {
  tenants: TenantsTable;
  applications: ApplicationsTable;
  api_keys: ApiKeysTable;
  signing_keys: SigningKeysTable;
  users: UsersTable;
  sessions: SessionsTable;
  active_users: ActiveUsersTable;
  active_user_counts: ActiveUserCountsTable;
  user_counts: UserCountsTable;
  refresh_tokens: RefreshTokensTable;
  email_challenges: EmailChallengesTable;
  hashcash_spent: HashcashSpentTable;
  sso_tokens: SsoTokensTable;
  donation_challenges_used: DonationChallengesUsedTable;
  bot_auth_replays: BotAuthReplaysTable;
  job_locks: JobLocksTable;
  node_releases: NodeReleasesTable;
  migration_compatibility: MigrationCompatibilityTable;
  billing_accounts: BillingAccountsTable;
  billing_ledger: BillingLedgerTable;
  billing_topups: BillingTopupsTable;
  billing_usage_charges: BillingUsageChargesTable;
  oauth_providers: OAuthProvidersTable;
  oauth_states: OAuthStatesTable;
  oauth_identities: OAuthIdentitiesTable;
  mail_outbox: MailOutboxTable;
  email_templates: EmailTemplatesTable;
  buckets: BucketsTable;
  objects: ObjectsTable;
  bucket_user_usage: BucketUserUsageTable;
  object_storage_usage: ObjectStorageUsageTable;
  object_uploads: ObjectUploadsTable;
  blob_deletions: BlobDeletionsTable;
  custom_tables: CustomTablesTable;
  custom_columns: CustomColumnsTable;
  custom_table_usage: CustomTableUsageTable;
  settings: SettingsTable;
  mfa_factors: MfaFactorsTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  mfa_challenges: MfaChallengesTable;
  webauthn_challenges: WebauthnChallengesTable;
  events: EventsTable;
  event_counts: EventCountsTable;
  organizations: OrganizationsTable;
  organization_members: OrganizationMembersTable;
  organization_user_counts: OrganizationUserCountsTable;
  organization_roles: OrganizationRolesTable;
  organization_invitations: OrganizationInvitationsTable;
  webhook_endpoints: WebhookEndpointsTable;
  webhook_endpoint_types: WebhookEndpointTypesTable;
  webhook_endpoint_counts: WebhookEndpointCountsTable;
  webhook_deliveries: WebhookDeliveriesTable;
  tenant_members: TenantMembersTable;
  tenant_invitations: TenantInvitationsTable;
  tenant_api_tokens: TenantApiTokensTable;
  console_operators: ConsoleOperatorsTable;
  console_setup_tokens: ConsoleSetupTokensTable;
}
