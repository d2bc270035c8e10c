// Each vendor's exported user → the ImportUser of POST /v1/users/import (docs/import.md). A record that
// cannot be one throws an Error whose message says why (that user fails; the others go on). No Node API.

/** The ImportUser the API takes (checked again by the service: these only map fields). */
export interface ImportUser {
  email: string;
  email_verified?: boolean;
  password_hash?: Record<string, unknown>;
  external_id?: string;
  created_at?: string;
  identities?: { provider: string; subject: string; email?: string }[];
  totp_secret?: string;
}

/** Firebase's project hash parameters (the console's "Password hash parameters"). */
export interface FirebaseHashConfig {
  signerKey: string;
  saltSeparator: string;
  rounds: number;
  memCost: number;
}

const isObject = (value: unknown): value is Record<string, any> => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown) => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);

function record(value: unknown): Record<string, any> {
  if (!isObject(value)) throw new Error('a record that is not an object');
  return value;
}

function email(value: unknown): string {
  const address = str(value);
  if (!address) throw new Error('no email address (a user without one cannot be imported)');
  return address;
}

/** A time as Firebase (milliseconds), Supabase (PostgreSQL text) or Auth0 ({"$date"}) write it → ISO 8601. */
export function isoTime(value: unknown): string | undefined {
  let time: Date | undefined;
  if (typeof value === 'number' || (typeof value === 'string' && /^\d{10,14}$/.test(value))) time = new Date(Number(value));
  else if (isObject(value) && '$date' in value) return isoTime(value.$date);
  else if (typeof value === 'string' && value.trim() !== '') {
    // PostgreSQL's "2024-01-02 03:04:05.123456+00": a T, the zone's minutes, milliseconds at most.
    const text = value.trim().replace(' ', 'T').replace(/([+-]\d{2})$/, '$1:00').replace(/(\.\d{3})\d+/, '$1');
    time = new Date(/[zZ]|[+-]\d{2}:?\d{2}$/.test(text) ? text : `${text}Z`);
  }
  return time && !Number.isNaN(time.getTime()) ? time.toISOString() : undefined;
}

const withoutUndefined = (user: ImportUser): ImportUser => Object.fromEntries(Object.entries(user).filter(([, v]) => v !== undefined)) as unknown as ImportUser;

const FIREBASE_PROVIDERS: Record<string, string> = { 'google.com': 'google', 'apple.com': 'apple', 'github.com': 'github' };

/** One user of `firebase auth:export --format=json` ({"users": [...]}). */
export function fromFirebase(value: unknown, config: FirebaseHashConfig | undefined): ImportUser {
  const user = record(value);
  const verified = user.emailVerified === true;
  let passwordHash: ImportUser['password_hash'];
  if (str(user.passwordHash)) {
    if (!config) throw new Error('a password hash, but no --hash-config (the project\'s password hash parameters)');
    passwordHash = { algorithm: 'firebase_scrypt', hash: user.passwordHash, salt: user.salt ?? '', signer_key: config.signerKey, salt_separator: config.saltSeparator, rounds: config.rounds, mem_cost: config.memCost };
  }
  const identities = (Array.isArray(user.providerUserInfo) ? user.providerUserInfo : [])
    .filter((info: unknown) => isObject(info) && str(info.rawId) && (FIREBASE_PROVIDERS[info.providerId] || /^oidc\.[a-z0-9-]{1,40}$/.test(info.providerId)))
    .map((info: Record<string, string>) => ({ provider: FIREBASE_PROVIDERS[info.providerId] ?? info.providerId!.replace('.', '-'), subject: info.rawId!, ...(str(info.email) ? { email: info.email } : {}) }));
  return withoutUndefined({
    email: email(user.email),
    email_verified: verified,
    external_id: str(user.localId),
    created_at: isoTime(user.createdAt),
    password_hash: passwordHash,
    // Links need a verified address (docs/import.md): an unverified user's are left out, not the user.
    identities: verified && identities.length > 0 ? identities : undefined,
  });
}

/** One row of Supabase's auth.users (CSV or JSON): a bcrypt encrypted_password, email_confirmed_at. */
export function fromSupabase(value: unknown): ImportUser {
  const row = record(value);
  if (str(row.deleted_at)) throw new Error('deleted in Supabase');
  const hash = str(row.encrypted_password);
  return withoutUndefined({
    email: email(row.email),
    email_verified: str(row.email_confirmed_at) !== undefined,
    external_id: str(row.id),
    created_at: isoTime(row.created_at),
    password_hash: hash ? { algorithm: 'bcrypt', hash } : undefined,
  });
}

const AUTH0_PROVIDERS: Record<string, string> = { 'google-oauth2': 'google', apple: 'apple', github: 'github' };

/** Auth0's custom_password_hash (its bulk import schema) → a password_hash. */
function auth0Hash(custom: unknown): Record<string, unknown> {
  const c = record(custom);
  const algorithm = String(c.algorithm);
  const hash = isObject(c.hash) ? c.hash : {};
  const value = str(hash.value);
  if (!value) throw new Error('custom_password_hash without hash.value');
  if (algorithm === 'bcrypt') return { algorithm, hash: value };
  if (algorithm === 'argon2') return { algorithm: value.split('$')[1] ?? 'argon2id', hash: value };
  if (algorithm === 'pbkdf2') return { algorithm: `pbkdf2_${(/^\$pbkdf2-(sha\d+)\$/.exec(value)?.[1] ?? 'sha256')}`, hash: value };
  if (['md5', 'sha1', 'sha256', 'sha512'].includes(algorithm)) {
    if (isObject(c.password) && c.password.encoding && c.password.encoding !== 'utf8') throw new Error(`password encoding ${c.password.encoding} is not supported`);
    const hex = hash.encoding === 'base64' ? Array.from(atob(value), (ch) => ch.charCodeAt(0).toString(16).padStart(2, '0')).join('') : value;
    const salt = isObject(c.salt) ? c.salt : undefined;
    return { algorithm, hash: hex, ...(salt ? { salt: salt.value, salt_encoding: salt.encoding ?? 'utf8', salt_position: salt.position ?? 'prefix' } : {}) };
  }
  throw new Error(`custom_password_hash algorithm ${algorithm.slice(0, 20)} is not supported`);
}

/** One line of Auth0's export (the bulk user export, or the password hash export support hands out), or an import-schema user. */
export function fromAuth0(value: unknown): ImportUser {
  const user = record(value);
  const verified = user.email_verified === true || user.email_verified === 'true';
  const externalId = str(user.user_id) ?? str(isObject(user._id) ? user._id.$oid : user._id);
  const listed: { provider?: string; user_id?: string }[] = Array.isArray(user.identities) ? user.identities : [];
  const fromId = externalId?.includes('|') ? [{ provider: externalId.split('|')[0], user_id: externalId.slice(externalId.indexOf('|') + 1) }] : [];
  const identities = [...(listed.length > 0 ? listed : fromId)]
    .filter((i) => isObject(i) && i.provider && AUTH0_PROVIDERS[i.provider] && i.user_id !== undefined)
    .map((i) => ({ provider: AUTH0_PROVIDERS[i.provider!]!, subject: String(i.user_id) }));
  const bcrypt = str(user.passwordHash);
  return withoutUndefined({
    email: email(user.email),
    email_verified: verified,
    external_id: externalId,
    created_at: isoTime(user.created_at),
    password_hash: user.custom_password_hash !== undefined ? auth0Hash(user.custom_password_hash) : bcrypt ? { algorithm: 'bcrypt', hash: bcrypt } : undefined,
    identities: verified && identities.length > 0 ? identities : undefined,
  });
}

/** Clerk's password_hasher and password_digest → a password_hash. */
function clerkHash(hasher: string, digest: string): Record<string, unknown> {
  if (hasher === 'bcrypt' || hasher === 'argon2i' || hasher === 'argon2id') return { algorithm: hasher, hash: digest };
  if (hasher === 'pbkdf2_sha256_django') return { algorithm: 'pbkdf2_sha256', hash: digest };
  if (/^pbkdf2_sha(1|256|512)$/.test(hasher)) return { algorithm: hasher, hash: digest };
  if (['md5', 'sha1', 'sha256', 'sha512'].includes(hasher)) return { algorithm: hasher, hash: digest };
  if (hasher === 'scrypt_firebase') {
    // <hash>$<salt>$<signer key>$<salt separator>$<rounds>$<memory cost>, as Clerk writes it.
    const [hash, salt, signerKey, separator, rounds, memCost] = digest.split('$');
    return { algorithm: 'firebase_scrypt', hash, salt, signer_key: signerKey, salt_separator: separator, rounds: Number(rounds), mem_cost: Number(memCost) };
  }
  throw new Error(`password_hasher ${hasher.slice(0, 30)} is not supported`);
}

/** One row of Clerk's user export CSV. */
export function fromClerk(value: unknown): ImportUser {
  const row = record(value);
  const address = email(row.primary_email_address);
  const verifiedList = String(row.verified_email_addresses ?? '').split(/[|,;\s]+/).map((e) => e.toLowerCase());
  const digest = str(row.password_digest);
  return withoutUndefined({
    email: address,
    email_verified: verifiedList.includes(address.toLowerCase()),
    external_id: str(row.id),
    created_at: isoTime(row.created_at),
    password_hash: digest ? clerkHash(str(row.password_hasher) ?? 'bcrypt', digest) : undefined,
    totp_secret: str(row.totp_secret),
  });
}
