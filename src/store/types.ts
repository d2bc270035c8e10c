import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

// Row types of every table. Portable across SQLite and PostgreSQL: timestamps are ISO 8601 UTC text
// (lexicographic order = time order), booleans are 0/1 integers, JSON is text. Converters in the
// repositories turn rows into domain values.

export interface TenantsTable {
  id: string;
  name: string;
  created_at: string;
}

export interface ApplicationsTable {
  id: string;
  tenant_id: string;
  name: string;
  domain: string | null;
  allowed_origins: string; // JSON array of origins
  verification_method: 'code' | 'link' | 'both';
  passwords_enabled: number;
  hashcash_enabled: number | null; // null: follow HASHCASH_ENABLED
  hashcash_difficulty: number;
  bot_min_usd_cents: number;
  objects_limit_bytes?: number | null; // null: OBJECTS_STORAGE_LIMIT_BYTES
  created_at: string;
  updated_at: string;
}

export interface ApiKeysTable {
  id: string;
  app_id: string;
  kind: 'publishable' | 'secret';
  key_hash: string; // sha256 hex of the whole key
  publishable_key: string | null; // publishable keys are public: kept to show them again
  created_at: string;
  expires_at: string | null; // a rotated secret's end of grace
}

export interface SigningKeysTable {
  id: string;
  app_id: string;
  version: number;
  kid: string;
  public_jwk: string; // JSON
  private_key_sealed: string; // PKCS#8 PEM sealed with MASTER_KEY
  created_at: string;
  retired_at: string | null;
}

export interface UsersTable {
  id: string;
  app_id: string;
  email: string | null;
  email_normalized: string | null;
  email_verified: number;
  password_hash: string | null;
  is_bot: number;
  public_key: string | null; // bots: canonical base64 of the 32-byte Ed25519 key
  requires_verification: Generated<number>; // self sign-ups until verified
  contested: Generated<number>; // 1 once a sign-up was refused because this unverified sign-up held the email
  created_at: string;
  updated_at: string;
}

export interface SessionsTable {
  id: string;
  app_id: string;
  user_id: string;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  /** SHA-256 of the session's current refresh token; null while that token is of the earlier form (refresh_tokens). */
  refresh_hash: string | null;
  refresh_generation: Generated<number>;
  rotated_at: string | null;
  prior_rotated_at: string | null;
  /** 'YYYY-MM' of the last two distinct months the session was refreshed in (monthly active users). */
  refreshed_month: string | null;
  prior_refreshed_month: string | null;
  /** When the clean-up next looks at the session (migration 0022); null: at its next run. */
  sweep_after: string | null;
  /** Where the session was opened from (migration 0021; null for sessions opened before it). */
  user_agent: string | null;
  ip: string | null;
}

/** A user active (a session started or refreshed) in an app in a month 'YYYY-MM' (migration 0022). */
export interface ActiveUsersTable {
  app_id: string;
  user_id: string;
  period: string;
}

/** How many active_users rows an (app, month) has, in slots by the user id's first character. */
export interface ActiveUserCountsTable {
  app_id: string;
  period: string;
  slot: string;
  users: number;
}

/** How many users an app has, in 16 slots by the user id's first character (migration 0027). */
export interface UserCountsTable {
  app_id: string;
  slot: string;
  users: number;
}

/** Refresh tokens of the earlier form (before migration 0014), kept until they rotate or expire. */
export interface RefreshTokensTable {
  token_hash: string;
  app_id: string;
  session_id: string;
  created_at: string;
  expires_at: string;
  rotated_at: string | null;
}

export interface EmailChallengesTable {
  id: string;
  app_id: string;
  user_id: string;
  email_normalized: string;
  purpose: 'verify_email' | 'claim_email' | 'magic_link' | 'password_reset' | 'change_email';
  code_hash: string | null;
  code_expires_at: string | null;
  link_hash: string | null;
  link_expires_at: string | null;
  redirect_url: string | null;
  attempts: number;
  used_at: string | null;
  created_at: string;
  /** change_email: the new address as typed (email_normalized holds it lower-cased); null otherwise. */
  new_email: string | null;
}

export interface HashcashSpentTable {
  challenge_hash: string;
  app_id: string;
  expires_at: string;
}

export interface SsoTokensTable {
  token_hash: string;
  tenant_id: string;
  source_app_id: string;
  user_id: string;
  origin: string;
  /** SHA-256 of the nonce the destination page keeps (migration 0028); null for a hop without one. */
  nonce_hash: string | null;
  expires_at: string;
  used_at: string | null;
  created_at: string;
}

export interface DonationChallengesUsedTable {
  challenge_id: string;
  app_id: string;
  purpose: 'bot' | 'topup';
  created_at: string;
}

export interface BotAuthReplaysTable {
  signature_hash: string;
  app_id: string;
  expires_at: string;
}

export interface JobLocksTable {
  name: string;
  holder: string;
  locked_until: string;
}

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
  billing_accounts: BillingAccountsTable;
  billing_ledger: BillingLedgerTable;
  billing_topups: BillingTopupsTable;
  billing_usage_charges: BillingUsageChargesTable;
  oauth_providers: OAuthProvidersTable;
  oauth_states: OAuthStatesTable;
  oauth_identities: OAuthIdentitiesTable;
  mail_outbox: MailOutboxTable;
  buckets: BucketsTable;
  objects: ObjectsTable;
  bucket_user_usage: BucketUserUsageTable;
  object_storage_usage: ObjectStorageUsageTable;
  object_uploads: ObjectUploadsTable;
  blob_deletions: BlobDeletionsTable;
}

export type TenantRow = Selectable<TenantsTable>;
export type ApplicationRow = Selectable<ApplicationsTable>;
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type SigningKeyRow = Selectable<SigningKeysTable>;
export type UserRow = Selectable<UsersTable>;
export type SessionRow = Selectable<SessionsTable>;
export type RefreshTokenRow = Selectable<RefreshTokensTable>;
export type EmailChallengeRow = Selectable<EmailChallengesTable>;
export type SsoTokenRow = Selectable<SsoTokensTable>;
export type NewApplication = Insertable<ApplicationsTable>;
export type ApplicationUpdate = Updateable<ApplicationsTable>;
export type NewUser = Insertable<UsersTable>;

// Billing (migration 0010). Money is integer cents; bigint columns arrive as numbers on both databases.

export interface BillingAccountsTable {
  tenant_id: string;
  balance_cents: number;
  paused: number;
  ledger_seq: number;
  updated_at: string;
}

export type LedgerType = 'topup' | 'usage' | 'adjustment';

export interface BillingLedgerTable {
  id: string;
  tenant_id: string;
  seq: number;
  type: LedgerType;
  amount_cents: number;
  balance_after_cents: number;
  description: string;
  payment_id: string | null;
  created_at: string;
}

export type TopupStatus = 'pending' | 'confirmed' | 'expired';

export interface BillingTopupsTable {
  id: string;
  tenant_id: string;
  app_id: string;
  challenge_id: string;
  amount_cents: number;
  method: 'crypto';
  chain: string;
  pay_address: string;
  pay_amount: string;
  status: TopupStatus;
  expires_at: string;
  created_at: string;
  updated_at: string;
}

export type UsageItem = 'monthly_active_users' | 'table_storage' | 'object_storage';

export interface BillingUsageChargesTable {
  tenant_id: string;
  period: string; // YYYY-MM
  item: UsageItem;
  quantity: number;
  amount_cents: number;
  transaction_id: string | null;
  created_at: string;
}

export type LedgerRow = Selectable<BillingLedgerTable>;
export type TopupRow = Selectable<BillingTopupsTable>;
export interface OAuthProvidersTable {
  app_id: string;
  provider: 'google' | 'apple';
  client_id: string;
  secret_sealed: string; // Google client secret or Apple .p8 PEM, sealed with MASTER_KEY
  team_id: string | null;
  key_id: string | null;
  scopes: string; // JSON array
  configured_at: string;
  updated_at: string;
}

export interface OAuthStatesTable {
  state_hash: string; // sha256 hex of the state sent to the provider
  app_id: string;
  provider: 'google' | 'apple';
  code_verifier_sealed: string;
  nonce: string;
  redirect_url: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
  browser_binding_hash: string | null; // sha256 hex of the cookie authorize set (migration 0016); null: made before it
}

export interface OAuthIdentitiesTable {
  app_id: string;
  provider: 'google' | 'apple';
  subject: string;
  user_id: string;
  email: string | null;
  name: string | null;
  created_at: string;
  updated_at: string;
}

export type OAuthProviderRow = Selectable<OAuthProvidersTable>;
export type OAuthStateRow = Selectable<OAuthStatesTable>;
export type OAuthIdentityRow = Selectable<OAuthIdentitiesTable>;
// 0011-link-landing (merged into the interface above): 1 when emailed links answer a one-button page.
export interface ApplicationsTable {
  link_landing: Generated<number>;
}
// 0019-user-deletion: 1 when a user may delete their own account (DELETE /v1/me).
export interface ApplicationsTable {
  self_delete: Generated<number>;
}
// Custom tables (migration 0008). The rows live in run-time tables `t_<id>` outside this interface.
export interface ApplicationsTable {
  tables_limit_bytes: number | null; // null: TABLES_STORAGE_LIMIT_BYTES
}

export interface CustomTablesTable {
  id: string;
  app_id: string;
  name: string;
  column_count: number;
  created_at: string;
  updated_at: string;
  /** Bumped with every change to the table's columns (0012): cached metadata is checked against it. */
  schema_version: Generated<number>;
}

export interface CustomColumnsTable {
  id: string;
  table_id: string;
  name: string;
  type: 'text' | 'int' | 'bool' | 'float' | 'date' | 'json';
  required: number;
  default_value: string | null; // JSON
  position: number;
  created_at: string;
}

export interface CustomTableUsageTable {
  app_id: string;
  used_bytes: number;
  table_count: number;
}

export interface Database {
  custom_tables: CustomTablesTable;
  custom_columns: CustomColumnsTable;
  custom_table_usage: CustomTableUsageTable;
}

export type CustomTableRow = Selectable<CustomTablesTable>;
export type CustomColumnRow = Selectable<CustomColumnsTable>;
/** An email waiting to be sent (0006): `sealed` is the message JSON sealed with MASTER_KEY. */
export interface MailOutboxTable {
  id: string;
  app_id: string;
  sealed: string;
  attempts: number;
  created_at: string;
  next_attempt_at: string;
  give_up_at: string;
  lease_holder: string | null;
  lease_until: string | null;
  last_error: string | null;
  gave_up_at: string | null;
  /** SHA-256 of `app_id:recipient` (lower-cased), for a user's deletion (migration 0025); null on older rows. */
  recipient_hash: string | null;
}

export type MailOutboxRow = Selectable<MailOutboxTable>;

// Object storage (migration 0009).
export interface BucketsTable {
  id: string;
  app_id: string;
  name: string;
  max_size_bytes: number | null;
  max_size_bytes_per_user: number | null;
  used_bytes: number; // committed objects plus uploads in flight
  object_count: number;
  created_at: string;
  updated_at: string;
}

export interface ObjectsTable {
  bucket_id: string;
  owner: string; // user id, or '' for none
  key: string;
  app_id: string;
  blob_id: string;
  size_bytes: number;
  content_type: string;
  etag: string;
  created_at: string;
  updated_at: string;
}

export interface BucketUserUsageTable {
  bucket_id: string;
  user_id: string;
  used_bytes: number;
}

export interface ObjectStorageUsageTable {
  app_id: string;
  used_bytes: number;
}

export interface ObjectUploadsTable {
  blob_id: string;
  app_id: string;
  bucket_id: string;
  owner: string;
  reserved_bytes: number;
  created_at: string;
  /** The node serving the upload (migration 0023); null on rows of an earlier release. */
  node_id: string | null;
  /** When that node last vouched for it; null on rows of an earlier release (the hour-long timeout applies). */
  alive_at: string | null;
}

export interface BlobDeletionsTable {
  blob_id: string;
  app_id: string;
  created_at: string;
  /** The token of the write that queued the blob last (random): a deleter removes the row only with it. */
  token: Generated<string>;
}

export type BucketRow = Selectable<BucketsTable>;
export type ObjectRow = Selectable<ObjectsTable>;

/** Installation-wide settings (0018), one row per name: e.g. the master key's check value. */
export interface SettingsTable {
  name: string;
  value: string;
  updated_at: string;
}

export interface Database {
  settings: SettingsTable;
}

// App and tenant deletion (migration 0020): set once, when the app or tenant is deleted; the purge job
// then removes an app's data and its row; a tenant's row stays, marked, beside its billing ledger.
export interface ApplicationsTable {
  deleted_at?: string | null;
}

export interface TenantsTable {
  deleted_at?: string | null;
}

export interface ApiKeysTable {
  /** The last 4 characters of a secret key (migration 0020; null before it and for publishable keys). */
  key_end?: string | null;
}

// Second factors (migration 0024, docs/mfa.md).
export interface MfaFactorsTable {
  id: string;
  app_id: string;
  user_id: string;
  type: 'totp' | 'webauthn';
  status: 'unverified' | 'verified';
  friendly_name: string | null;
  /** TOTP: the base32 secret sealed with MASTER_KEY, bound to the factor id. */
  secret_sealed: string | null;
  /** TOTP: the last time step a code was accepted for (no step is used twice). */
  last_step: number | null;
  attempts: Generated<number>;
  /** TOTP: wrong sign-in codes in a row, and until when the factor refuses codes (migration 0026). */
  failed_codes: Generated<number>;
  locked_until: string | null;
  /** WebAuthn: the credential id (base64url), its COSE public key (base64url), counter and transports (JSON). */
  credential_id: string | null;
  public_key: string | null;
  sign_count: number | null;
  transports: string | null;
  created_at: string;
  updated_at: string;
  last_used_at: string | null;
}

export interface MfaRecoveryCodesTable {
  id: string;
  app_id: string;
  user_id: string;
  code_hash: string;
  created_at: string;
  used_at: string | null;
}

export interface MfaChallengesTable {
  id: string;
  app_id: string;
  user_id: string;
  token_hash: string;
  /** The first factor's amr values, comma-separated. */
  amr: string;
  attempts: Generated<number>;
  webauthn_challenge: string | null;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface WebauthnChallengesTable {
  id: string;
  app_id: string;
  user_id: string | null;
  purpose: 'register' | 'signin';
  challenge: string;
  created_at: string;
  expires_at: string;
  used_at: string | null;
}

export interface Database {
  mfa_factors: MfaFactorsTable;
  mfa_recovery_codes: MfaRecoveryCodesTable;
  mfa_challenges: MfaChallengesTable;
  webauthn_challenges: WebauthnChallengesTable;
}
export interface SessionsTable {
  /** How the session was opened, comma-separated amr values (migration 0024; null before it). */
  amr?: string | null;
}
export interface ApplicationsTable {
  /** 'required', or null: second factors optional (migration 0024). */
  mfa_policy: 'required' | null;
}
export type MfaFactorRow = Selectable<MfaFactorsTable>;
