import type { Generated, Selectable } from 'kysely';

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

export type MfaFactorRow = Selectable<MfaFactorsTable>;

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
  /** session.created's method and provider for the session it completes (migration 0046); null before it. */
  method: string | null;
  provider: string | null;
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
