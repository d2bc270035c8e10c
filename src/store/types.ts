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
}

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
  purpose: 'verify_email' | 'claim_email' | 'magic_link';
  code_hash: string | null;
  code_expires_at: string | null;
  link_hash: string | null;
  link_expires_at: string | null;
  redirect_url: string | null;
  attempts: number;
  used_at: string | null;
  created_at: string;
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
  refresh_tokens: RefreshTokensTable;
  email_challenges: EmailChallengesTable;
  hashcash_spent: HashcashSpentTable;
  sso_tokens: SsoTokensTable;
  donation_challenges_used: DonationChallengesUsedTable;
  bot_auth_replays: BotAuthReplaysTable;
  job_locks: JobLocksTable;
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
