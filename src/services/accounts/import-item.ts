import { HashRefused, storedImportedHash, type PasswordHashInput } from '../../crypto/imported-hashes.js';
import { PASSWORD_MAX, PASSWORD_MIN } from '../../crypto/passwords.js';
import { base32Decode } from '../../crypto/totp.js';
import { ApiError, badRequest, type ErrorCode } from '../../errors.js';
import { canonicalLocale } from '../../mail/locale.js';

// One ImportUser of POST /v1/users/import (docs/import.md), checked on its own: whatever is wrong with it
// fails that item only. The HTTP schema checks the types; the CLI's readers hand the same objects to the
// same service, so every field is checked here again.

export interface ImportUser {
  email: string;
  email_verified?: boolean;
  password_hash?: PasswordHashInput;
  password?: string;
  external_id?: string;
  created_at?: string;
  identities?: { provider: string; subject: string; email?: string }[];
  totp_secret?: string;
  /** BCP 47: the language of the user's emails (docs/email.md). */
  locale?: string;
}

/** An item ready to be written: the hash in its stored form, the TOTP secret as canonical base32. */
export interface CheckedImport {
  email: string;
  emailVerified: boolean;
  /** The imported hash's stored form; or the password to hash with argon2id before the write. */
  passwordHash: string | null;
  password: string | null;
  externalId: string | null;
  createdAt: string | null;
  identities: { provider: string; subject: string; email: string | null }[];
  totpSecret: string | null;
  locale: string | null;
}

export const MAX_IDENTITIES = 10;
const FIELDS = new Set(['email', 'email_verified', 'password_hash', 'password', 'external_id', 'created_at', 'identities', 'totp_secret', 'locale']);
const EMAIL = /^[^\s@"(),:;<>[\\\]]+@[^\s@"(),:;<>[\\\]]+\.[^\s@"(),:;<>[\\\]]+$/;
const PROVIDER = /^(google|apple|github|microsoft|oidc-[a-z0-9-]{1,40})$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;

const fail = (detail: string, code: ErrorCode = 'validation_failed'): never => {
  throw badRequest(detail, code);
};

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function text(value: unknown, name: string, max: number): string {
  if (typeof value !== 'string' || value.length < 1 || value.length > max) return fail(`${name} must be a string of 1 to ${max} characters`);
  return value;
}

/** A BCP 47 tag in its canonical form (fr-ca → fr-CA), or that item's `invalid_locale`. */
function localeOf(value: unknown): string {
  const tag = typeof value === 'string' && value.length <= 64 ? canonicalLocale(value) : null;
  return tag ?? fail('locale must be a BCP 47 language tag (such as en, fr-CA, de)', 'invalid_locale');
}

/** RFC 4648 base32 (case, spaces and padding aside) of 10 to 64 bytes → its canonical form. */
function totpSecret(value: unknown): string {
  const compact = typeof value === 'string' ? value.replace(/[\s-]/g, '').replace(/=+$/, '').toUpperCase() : '';
  let length = 0;
  try {
    length = /^[A-Z2-7]+$/.test(compact) ? base32Decode(compact).length : 0;
  } catch {
    length = 0;
  }
  if (length < 10 || length > 64) return fail('totp_secret must be base32 of 10 to 64 bytes', 'invalid_totp_secret');
  return compact;
}

function createdAt(value: unknown, now: Date): string {
  const time = typeof value === 'string' && TIMESTAMP.test(value) ? new Date(value) : undefined;
  if (!time || Number.isNaN(time.getTime())) return fail('created_at must be an ISO 8601 time with its zone');
  if (time.getTime() > now.getTime()) return fail('created_at is in the future');
  return time.toISOString();
}

function identities(value: unknown): CheckedImport['identities'] {
  if (!Array.isArray(value) || value.length > MAX_IDENTITIES) return fail(`identities must be a list of at most ${MAX_IDENTITIES}`);
  const seen = new Set<string>();
  return value.map((identity) => {
    if (!isObject(identity) || Object.keys(identity).some((key) => !['provider', 'subject', 'email'].includes(key))) return fail('an identity is {provider, subject, email?}');
    const provider = text(identity.provider, 'identities[].provider', 45);
    if (!PROVIDER.test(provider)) fail('identities[].provider must be google, apple, github, microsoft or oidc-<name>');
    const subject = text(identity.subject, 'identities[].subject', 255);
    if (seen.has(`${provider}\n${subject}`)) fail('the same identity twice');
    seen.add(`${provider}\n${subject}`);
    const email = identity.email === undefined || identity.email === null ? null : text(identity.email, 'identities[].email', 254);
    return { provider, subject, email };
  });
}

/** The item checked (400-shaped ApiError for what is wrong with it), without any hashing. */
export function checkImportUser(item: unknown, options: { passwordsEnabled: boolean; now: Date }): CheckedImport {
  if (!isObject(item)) return fail('a user must be an object');
  const unknown = Object.keys(item).find((key) => !FIELDS.has(key));
  if (unknown !== undefined) fail(`unknown field '${unknown.slice(0, 40)}'`, 'unknown_field');
  const email = text(item.email, 'email', 254).trim();
  if (!EMAIL.test(email)) fail('email is not an email address');
  if (item.email_verified !== undefined && typeof item.email_verified !== 'boolean') fail('email_verified must be true or false');
  const emailVerified = item.email_verified === true;
  if (item.password !== undefined && item.password_hash !== undefined) fail('password or password_hash, not both');
  if ((item.password !== undefined || item.password_hash !== undefined) && !options.passwordsEnabled) fail('passwords are disabled for this application', 'passwords_disabled');
  let password: string | null = null;
  if (item.password !== undefined) {
    if (typeof item.password !== 'string' || item.password.length < PASSWORD_MIN || item.password.length > PASSWORD_MAX) fail(`password must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters`);
    password = item.password as string;
  }
  let passwordHash: string | null = null;
  if (item.password_hash !== undefined) {
    if (!isObject(item.password_hash) || typeof item.password_hash.algorithm !== 'string') fail('password_hash must be {algorithm, ...}', 'invalid_password_hash');
    try {
      passwordHash = storedImportedHash(item.password_hash as unknown as PasswordHashInput);
    } catch (error) {
      if (error instanceof HashRefused) fail(`password_hash: ${error.message}`, 'invalid_password_hash');
      throw error;
    }
  }
  const checked: CheckedImport = {
    email,
    emailVerified,
    password,
    passwordHash,
    externalId: item.external_id === undefined ? null : text(item.external_id, 'external_id', 255),
    createdAt: item.created_at === undefined ? null : createdAt(item.created_at, options.now),
    identities: item.identities === undefined ? [] : identities(item.identities),
    totpSecret: item.totp_secret === undefined ? null : totpSecret(item.totp_secret),
    locale: item.locale === undefined ? null : localeOf(item.locale),
  };
  if ((checked.totpSecret !== null || checked.identities.length > 0) && !emailVerified) {
    fail('totp_secret and identities need email_verified: true (the tenant vouches for the address)', 'email_not_verified');
  }
  return checked;
}

/** An item's failure as its result's detail and code; anything but an ApiError is the caller's fault to surface. */
export function itemError(error: unknown): { detail: string; code: ErrorCode } {
  if (error instanceof ApiError && error.status < 500) return { detail: error.detail, code: error.code };
  throw error;
}
