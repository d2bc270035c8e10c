import type { Selectable } from 'kysely';

// OAuth sign-in (migration 0007): each app's provider configuration, the states in flight, linked identities.

/** google, apple, github, microsoft, or a custom OpenID Connect provider `oidc-<name>` (migration 0037). */
export type OAuthProviderName = 'google' | 'apple' | 'github' | 'microsoft' | `oidc-${string}`;

export interface OAuthProvidersTable {
  app_id: string;
  provider: OAuthProviderName;
  client_id: string;
  secret_sealed: string; // the client secret (Apple: the .p8 PEM), sealed with MASTER_KEY
  team_id: string | null;
  key_id: string | null;
  scopes: string; // JSON array
  configured_at: string;
  updated_at: string;
  issuer: string | null; // oidc-<name>: the issuer URL (migration 0037)
  tenant: string | null; // microsoft: common, organizations, consumers or a tenant id (migration 0037)
  display_name: string | null; // oidc-<name>: the name a sign-in page shows (migration 0037)
}

export type OAuthProviderRow = Selectable<OAuthProvidersTable>;

export interface OAuthStatesTable {
  state_hash: string; // sha256 hex of the state sent to the provider
  app_id: string;
  provider: OAuthProviderName;
  code_verifier_sealed: string;
  nonce: string;
  redirect_url: string;
  expires_at: string;
  used_at: string | null;
  created_at: string;
  browser_binding_hash: string | null; // sha256 hex of the cookie authorize set (migration 0016); null: made before it
}

export type OAuthStateRow = Selectable<OAuthStatesTable>;

export interface OAuthIdentitiesTable {
  app_id: string;
  provider: OAuthProviderName;
  subject: string;
  user_id: string;
  email: string | null;
  name: string | null;
  created_at: string;
  updated_at: string;
}

export type OAuthIdentityRow = Selectable<OAuthIdentitiesTable>;
