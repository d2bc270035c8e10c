// Password hashes brought in by POST /v1/users/import (docs/import.md): each family is checked and its cost
// capped here, before anything is stored, then kept in users.password_hash as one self-describing string
// (bcrypt and argon2 as they came; the others in the PHC-like forms below). crypto/legacy-verify.ts checks a
// password against them. Nothing is hashed at import.

/** A password_hash of an imported user, as the API takes it. */
export interface PasswordHashInput {
  algorithm: string;
  hash?: unknown;
  salt?: unknown;
  salt_encoding?: unknown;
  salt_position?: unknown;
  n?: unknown;
  r?: unknown;
  p?: unknown;
  key_length?: unknown;
  signer_key?: unknown;
  salt_separator?: unknown;
  rounds?: unknown;
  mem_cost?: unknown;
}

/** A hash refused: unknown algorithm, malformed, or a cost over its cap (that item fails). */
export class HashRefused extends Error {}

export const CAPS = {
  bcryptCost: 15,
  argon2Memory: 262_144,
  argon2Time: 10,
  argon2Lanes: 16,
  scryptN: 2 ** 20,
  scryptR: 16,
  scryptP: 16,
  /** 128 · N · r bytes of memory at most per scrypt check (n = 2^20 needs r ≤ 2). */
  scryptMemory: 256 * 1024 * 1024,
  firebaseRounds: 8,
  firebaseMemCost: 14,
  pbkdf2Iterations: 10_000_000,
} as const;

export const ALGORITHMS = [
  'bcrypt', 'argon2id', 'argon2i', 'argon2d', 'scrypt', 'firebase_scrypt', 'pbkdf2_sha1', 'pbkdf2_sha256', 'pbkdf2_sha512', 'md5', 'sha1', 'sha256', 'sha512',
] as const;

const DIGEST_HEX = { md5: 32, sha1: 40, sha256: 64, sha512: 128 } as const;

const refuse = (detail: string): never => {
  throw new HashRefused(detail);
};

/** Standard base64 (padding optional; '.' read as '+', as passlib's PHC strings write it) → bytes, or a refusal. */
export function decodeBase64(value: unknown, name: string, options: { min?: number; max?: number } = {}): Uint8Array {
  if (typeof value !== 'string' || !/^[A-Za-z0-9+/.]*={0,2}$/.test(value)) return refuse(`${name} is not base64`);
  const text = value.replaceAll('.', '+').replace(/=+$/, '');
  if (text.length % 4 === 1) return refuse(`${name} is not base64`);
  const bytes = Uint8Array.from(atob(text + '='.repeat((4 - (text.length % 4)) % 4)), (c) => c.charCodeAt(0));
  if (bytes.length < (options.min ?? 1) || bytes.length > (options.max ?? 1024)) return refuse(`${name} has ${bytes.length} bytes, outside ${options.min ?? 1}-${options.max ?? 1024}`);
  return bytes;
}

export const encodeBase64 = (bytes: Uint8Array) => btoa(String.fromCharCode(...bytes));

function integer(value: unknown, name: string, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) return refuse(`${name} must be a whole number`);
  if (value < min) return refuse(`${name} must be at least ${min}`);
  if (value > max) return refuse(`${name} is over its cap of ${max}`);
  return value;
}

function bcrypt(hash: unknown): string {
  const match = typeof hash === 'string' ? /^\$2[aby]\$(\d{2})\$[./A-Za-z0-9]{53}$/.exec(hash) : null;
  if (!match) return refuse('not a bcrypt hash ($2a$, $2b$ or $2y$, cost, 53 characters)');
  integer(Number(match[1]), 'bcrypt cost', 4, CAPS.bcryptCost);
  return hash as string;
}

function argon2(algorithm: string, hash: unknown): string {
  const match = typeof hash === 'string' ? /^\$(argon2(?:id|i|d))\$(?:v=(16|19)\$)?m=(\d{1,7}),t=(\d{1,4}),p=(\d{1,3})\$([A-Za-z0-9+/]+)\$([A-Za-z0-9+/]+)$/.exec(hash) : null;
  if (!match) return refuse('not an argon2 PHC string ($argon2id$v=19$m=..,t=..,p=..$salt$hash)');
  if (match[1] !== algorithm) return refuse(`the hash is ${match[1]}, not ${algorithm}`);
  integer(Number(match[3]), 'argon2 m', 8, CAPS.argon2Memory);
  integer(Number(match[4]), 'argon2 t', 1, CAPS.argon2Time);
  integer(Number(match[5]), 'argon2 p', 1, CAPS.argon2Lanes);
  decodeBase64(match[6], 'argon2 salt', { min: 8, max: 64 });
  decodeBase64(match[7], 'argon2 hash', { min: 4, max: 64 });
  return hash as string;
}

function scrypt(input: PasswordHashInput): string {
  const n = integer(input.n, 'n', 2, CAPS.scryptN);
  if ((n & (n - 1)) !== 0) refuse('n must be a power of two');
  const r = integer(input.r, 'r', 1, CAPS.scryptR);
  const p = integer(input.p, 'p', 1, CAPS.scryptP);
  if (128 * n * r > CAPS.scryptMemory) refuse(`128 · n · r is over its cap of ${CAPS.scryptMemory} bytes`);
  const keyLength = input.key_length === undefined ? 64 : integer(input.key_length, 'key_length', 16, 128);
  const salt = decodeBase64(input.salt, 'salt', { max: 256 });
  const hash = decodeBase64(input.hash, 'hash', { min: keyLength, max: keyLength });
  return `$scrypt$ln=${Math.log2(n)},r=${r},p=${p}$${encodeBase64(salt)}$${encodeBase64(hash)}`;
}

function firebaseScrypt(input: PasswordHashInput): string {
  const rounds = integer(input.rounds, 'rounds', 1, CAPS.firebaseRounds);
  const memCost = integer(input.mem_cost, 'mem_cost', 1, CAPS.firebaseMemCost);
  const salt = decodeBase64(input.salt, 'salt', { max: 256 });
  const separator = decodeBase64(input.salt_separator, 'salt_separator', { min: 0, max: 64 });
  const signerKey = decodeBase64(input.signer_key, 'signer_key', { min: 16, max: 256 });
  const hash = decodeBase64(input.hash, 'hash', { min: signerKey.length, max: signerKey.length });
  return `$firebase-scrypt$r=${rounds},m=${memCost}$${encodeBase64(salt)}$${encodeBase64(separator)}$${encodeBase64(signerKey)}$${encodeBase64(hash)}`;
}

const utf8 = new TextEncoder();

function pbkdf2(algorithm: 'pbkdf2_sha1' | 'pbkdf2_sha256' | 'pbkdf2_sha512', hash: unknown): string {
  const digest = algorithm.slice('pbkdf2_'.length);
  if (typeof hash !== 'string') return refuse('hash must be a string');
  let iterations: string;
  let salt: Uint8Array;
  let derived: Uint8Array;
  const django = /^pbkdf2_(sha1|sha256|sha512)\$(\d{1,9})\$([^$]{1,256})\$([A-Za-z0-9+/=]+)$/.exec(hash);
  // The PHC form, i= (and passlib's bare rounds), an optional l= (the key's length: the hash's own).
  const phc = /^\$pbkdf2-(sha1|sha256|sha512)\$(?:i=)?(\d{1,9})(?:,l=\d{1,4})?\$([A-Za-z0-9+/.]*)\$([A-Za-z0-9+/.]+)$/.exec(hash);
  if (django) {
    if (django[1] !== digest) return refuse(`the hash is pbkdf2_${django[1]}, not ${algorithm}`);
    [iterations, salt, derived] = [django[2]!, utf8.encode(django[3]!), decodeBase64(django[4], 'hash', { min: 16, max: 128 })];
  } else if (phc) {
    if (phc[1] !== digest) return refuse(`the hash is pbkdf2-${phc[1]}, not ${algorithm}`);
    [iterations, salt, derived] = [phc[2]!, decodeBase64(phc[3], 'salt', { min: 0, max: 256 }), decodeBase64(phc[4], 'hash', { min: 16, max: 128 })];
  } else {
    return refuse(`not a pbkdf2 hash: ${algorithm}$<iterations>$<salt>$<base64> or $pbkdf2-${digest}$i=<n>$<salt>$<hash>`);
  }
  integer(Number(iterations), 'iterations', 1, CAPS.pbkdf2Iterations);
  return `$pbkdf2-${digest}$i=${Number(iterations)}$${encodeBase64(salt)}$${encodeBase64(derived)}`;
}

function saltBytes(input: PasswordHashInput): Uint8Array {
  const encoding = input.salt_encoding ?? 'utf8';
  if (typeof input.salt !== 'string' || input.salt.length > 1024) return refuse('salt must be a string of at most 1024 characters');
  if (encoding === 'utf8') return utf8.encode(input.salt);
  if (encoding === 'base64') return decodeBase64(input.salt, 'salt', { min: 0 });
  if (encoding === 'hex' && /^([0-9a-fA-F]{2})*$/.test(input.salt)) return Uint8Array.from(input.salt.match(/../g) ?? [], (h) => parseInt(h, 16));
  return refuse('salt_encoding must be utf8, base64 or hex (and the salt written in it)');
}

function digest(algorithm: keyof typeof DIGEST_HEX, input: PasswordHashInput): string {
  const length = DIGEST_HEX[algorithm];
  if (typeof input.hash !== 'string' || !new RegExp(`^[0-9a-fA-F]{${length}}$`).test(input.hash)) return refuse(`hash must be ${length} hex digits`);
  if (input.salt === undefined || input.salt === '') {
    if (input.salt_position !== undefined) refuse('salt_position without a salt');
    return `$${algorithm}$none$$${input.hash.toLowerCase()}`;
  }
  if (input.salt_position !== 'prefix' && input.salt_position !== 'suffix') return refuse('salt_position must be prefix or suffix');
  return `$${algorithm}$${input.salt_position}$${encodeBase64(saltBytes(input))}$${input.hash.toLowerCase()}`;
}

const FIELDS: Record<string, readonly string[]> = {
  bcrypt: ['hash'],
  argon2: ['hash'],
  pbkdf2: ['hash'],
  scrypt: ['hash', 'salt', 'n', 'r', 'p', 'key_length'],
  firebase_scrypt: ['hash', 'salt', 'signer_key', 'salt_separator', 'rounds', 'mem_cost'],
  digest: ['hash', 'salt', 'salt_position', 'salt_encoding'],
};

const familyOf = (algorithm: string) =>
  algorithm.startsWith('argon2') ? 'argon2' : algorithm.startsWith('pbkdf2_') ? 'pbkdf2' : algorithm in DIGEST_HEX ? 'digest' : algorithm;

/** The stored form of an imported hash, or HashRefused (unknown algorithm, a field it does not take, malformed, over a cap). */
export function storedImportedHash(input: PasswordHashInput): string {
  const algorithm = input.algorithm;
  if (!(ALGORITHMS as readonly string[]).includes(algorithm)) return refuse(`unknown algorithm '${String(algorithm).slice(0, 40)}': one of ${ALGORITHMS.join(', ')}`);
  const allowed = FIELDS[familyOf(algorithm)]!;
  const extra = Object.keys(input).find((key) => key !== 'algorithm' && !allowed.includes(key));
  if (extra !== undefined) return refuse(`${algorithm} takes no '${extra.slice(0, 40)}'`);
  switch (algorithm) {
    case 'bcrypt':
      return bcrypt(input.hash);
    case 'argon2id':
    case 'argon2i':
    case 'argon2d':
      return argon2(algorithm, input.hash);
    case 'scrypt':
      return scrypt(input);
    case 'firebase_scrypt':
      return firebaseScrypt(input);
    case 'pbkdf2_sha1':
    case 'pbkdf2_sha256':
    case 'pbkdf2_sha512':
      return pbkdf2(algorithm, input.hash);
    default:
      return digest(algorithm as keyof typeof DIGEST_HEX, input);
  }
}
