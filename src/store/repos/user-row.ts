import type { UserRow } from '../types.js';

// A user as the repositories answer it, read from its row, and the email key it is found by.

export interface User {
  id: string;
  appId: string;
  email: string | null;
  emailVerified: boolean;
  passwordHash: string | null;
  isBot: boolean;
  publicKey: string | null;
  /** A self sign-up that has not verified its email yet: password sign-in is refused until it does. */
  requiresVerification: boolean;
  createdAt: string;
  updatedAt: string;
  /** Written by the server, read by the user too (GET /v1/me). */
  publicMetadata: Metadata;
  /** Written and read by the server only. */
  privateMetadata: Metadata;
  /** Written and read by the user (PATCH /v1/me) and the server. */
  unsafeMetadata: Metadata;
  /** Banned by the server: every sign-in and refresh is refused. */
  banned: boolean;
  /** Its id in the service it was imported from, unique per app; null for users made here. */
  externalId: string | null;
  /** The language of the user's emails, a canonical BCP 47 tag; null: English (docs/email.md). */
  locale: string | null;
}

/** A metadata object, as stored (JSON text) and answered. */
export type Metadata = Record<string, unknown>;

/** The columns toUser reads (a joined query may select only these). */
export type UserFields = Pick<
  UserRow,
  | 'id' | 'app_id' | 'email' | 'email_verified' | 'password_hash' | 'is_bot' | 'public_key' | 'requires_verification' | 'created_at' | 'updated_at'
  | 'public_metadata' | 'private_metadata' | 'unsafe_metadata' | 'banned' | 'locale'
> & Partial<Pick<UserRow, 'external_id'>>;

/** A stored metadata column: always an object ('{}' when none; the service writes only objects). */
export const parseMetadata = (text: string): Metadata => JSON.parse(text) as Metadata;

export function toUser(row: UserFields): User {
  return {
    id: row.id,
    appId: row.app_id,
    email: row.email,
    emailVerified: row.email_verified === 1,
    passwordHash: row.password_hash,
    isBot: row.is_bot === 1,
    publicKey: row.public_key,
    requiresVerification: row.requires_verification === 1,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    publicMetadata: parseMetadata(row.public_metadata),
    privateMetadata: parseMetadata(row.private_metadata),
    unsafeMetadata: parseMetadata(row.unsafe_metadata),
    banned: row.banned === 1,
    externalId: row.external_id ?? null,
    // Rows read by a statement prepared before migration 0038 lack the column: no locale.
    locale: row.locale ?? null,
  };
}

/** Emails compare case-insensitively: the stored key is the trimmed, lower-cased address. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase();
