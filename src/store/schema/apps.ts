import type { Generated, Insertable, Selectable, Updateable } from 'kysely';

// Tenants, their applications, the applications' keys, and the installation's own rows.

export interface TenantsTable {
  id: string;
  name: string;
  created_at: string;
  /** Set once, when the tenant is deleted (migration 0020): its row stays, marked, beside its billing ledger. */
  deleted_at?: string | null;
  /** 1 for the built-in system tenant holding the console app (migration 0034): never listed to tenants. */
  system?: Generated<number>;
}

export type TenantRow = Selectable<TenantsTable>;

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
  /** The custom claims template, JSON (migration 0031); null: none. */
  token_claims?: string | null;
  /** 1: the organisation routes answer; 0: each is 404 (migration 0035). */
  organizations_enabled?: number;
  /** Who may create organisations: 'users' (any signed-in user) or 'server' (migration 0035). */
  org_creation?: 'users' | 'server';
  /** The app's sender and Reply-To (migration 0038); null: EMAIL_FROM, and no Reply-To. */
  email_from?: string | null;
  reply_to?: string | null;
  /** A parent domain of `domain` that `__session` is set for (migration 0041); null: host-only. */
  cookie_domain?: string | null;
  created_at: string;
  updated_at: string;
  /** 1 when emailed links answer a one-button page (migration 0011). */
  link_landing: Generated<number>;
  /** 1 when a user may delete their own account, DELETE /v1/me (migration 0019). */
  self_delete: Generated<number>;
  tables_limit_bytes: number | null; // null: TABLES_STORAGE_LIMIT_BYTES
  /** Set once, when the app is deleted (migration 0020): every route refuses it, and the purge job removes its data and then its row. */
  deleted_at?: string | null;
  /** 'required', or null: second factors optional (migration 0024). */
  mfa_policy: 'required' | null;
}

export type ApplicationRow = Selectable<ApplicationsTable>;
export type NewApplication = Insertable<ApplicationsTable>;
export type ApplicationUpdate = Updateable<ApplicationsTable>;

export interface ApiKeysTable {
  id: string;
  app_id: string;
  kind: 'publishable' | 'secret';
  key_hash: string; // sha256 hex of the whole key
  publishable_key: string | null; // publishable keys are public: kept to show them again
  created_at: string;
  expires_at: string | null; // a rotated secret's end of grace
  /** The last 4 characters of a secret key (migration 0020; null before it and for publishable keys). */
  key_end?: string | null;
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

export type SigningKeyRow = Selectable<SigningKeysTable>;

/** Installation-wide settings (0018), one row per name: e.g. the master key's check value. */
export interface SettingsTable {
  name: string;
  value: string;
  updated_at: string;
}

export interface JobLocksTable {
  name: string;
  holder: string;
  locked_until: string;
}

/** One row per running `serve` process (migration 0049): its release and heartbeat (services/nodes.ts). */
export interface NodeReleasesTable {
  node_id: string;
  /** RELEASE.name: `version+commit`. */
  release: string;
  /** The newest migration the node's build knows (by number; migrations land out of order, so known_migrations orders releases). */
  latest_migration: string;
  /** Every migration the build knows, a JSON array of names (migration 0050); null: a release before 0050. */
  known_migrations: string | null;
  started_at: string;
  last_seen_at: string;
}

/** The applied migrations marked compatible (migration 0049): a release that does not know one still starts. */
export interface MigrationCompatibilityTable {
  name: string;
  recorded_at: string;
}
