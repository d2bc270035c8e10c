import type { Generated, Insertable, Selectable } from 'kysely';

// Users, their sessions and the single-use things of signing in (codes and links, SSO tokens, proofs of work,
// bot replays), and the counts kept for listing and billing.

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
  /** JSON objects as text, '{}' when none (migration 0030): the server writes public and private, the user unsafe. */
  public_metadata: Generated<string>;
  private_metadata: Generated<string>;
  unsafe_metadata: Generated<string>;
  banned: Generated<number>; // 1 while banned: sign-in and refresh refused
  /** The user's id in the service it was imported from (migration 0036), unique per app; null otherwise. */
  external_id: string | null;
  /** A canonical BCP 47 tag (migration 0038): the language of the user's emails; null: English. */
  locale?: string | null;
}

export type UserRow = Selectable<UsersTable>;
export type NewUser = Insertable<UsersTable>;

/** How many users an app has, in 16 slots by the user id's first character (migration 0027). */
export interface UserCountsTable {
  app_id: string;
  slot: string;
  users: number;
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
  /** How the session was opened, comma-separated amr values (migration 0024; null before it). */
  amr?: string | null;
  /** When the user last proved who they are in this session (migration 0029; null before it: created_at). */
  authenticated_at?: string | null;
  /** The session's active organisation (migration 0035): its access tokens carry the org claims. */
  active_org_id?: string | null;
}

export type SessionRow = Selectable<SessionsTable>;

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

/** Refresh tokens of the earlier form (before migration 0014), kept until they rotate or expire. */
export interface RefreshTokensTable {
  token_hash: string;
  app_id: string;
  session_id: string;
  created_at: string;
  expires_at: string;
  rotated_at: string | null;
}

export type RefreshTokenRow = Selectable<RefreshTokensTable>;

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

export type EmailChallengeRow = Selectable<EmailChallengesTable>;

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

export type SsoTokenRow = Selectable<SsoTokensTable>;

export interface HashcashSpentTable {
  challenge_hash: string;
  app_id: string;
  expires_at: string;
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
