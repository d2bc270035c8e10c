import { createCipheriv, createHash, pbkdf2, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';
import { verify as verifyBcrypt } from '@node-rs/bcrypt';

// Checks a password against an imported hash in its stored form (crypto/imported-hashes.ts), on libuv's
// thread pool where the work is slow (bcrypt, scrypt, pbkdf2), comparing the bytes in constant time. The
// caps were enforced when the hash was stored; a stored string that does not parse answers false.

const scryptAsync = promisify(scrypt) as (password: string, salt: Buffer, length: number, options: object) => Promise<Buffer>;
const pbkdf2Async = promisify(pbkdf2);

const b64 = (text: string) => Buffer.from(text, 'base64');

/** Equal lengths and equal bytes, in time that depends on the length alone. */
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** Firebase's modified scrypt: the signer key encrypted with AES-256-CTR (zero IV) under scrypt(password, salt ‖ separator). */
export async function firebaseScryptHash(password: string, p: { salt: Buffer; separator: Buffer; signerKey: Buffer; rounds: number; memCost: number }): Promise<Buffer> {
  const n = 2 ** p.memCost;
  const key = await scryptAsync(password, Buffer.concat([p.salt, p.separator]), 32, { N: n, r: p.rounds, p: 1, maxmem: 128 * n * p.rounds + 1024 * 1024 });
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  return Buffer.concat([cipher.update(p.signerKey), cipher.final()]);
}

function withSalt(password: string, position: string, salt: Buffer): Buffer {
  const bytes = Buffer.from(password, 'utf8');
  if (position === 'prefix') return Buffer.concat([salt, bytes]);
  if (position === 'suffix') return Buffer.concat([bytes, salt]);
  return bytes;
}

/** Whether the password matches the stored imported hash (bcrypt, scrypt, Firebase scrypt, pbkdf2, md5/sha*). */
export async function verifyLegacyHash(stored: string, password: string): Promise<boolean> {
  if (stored.startsWith('$2')) return verifyBcrypt(password, stored);
  const parts = stored.split('$');
  switch (parts[1]) {
    case 'scrypt': {
      const params = /^ln=(\d+),r=(\d+),p=(\d+)$/.exec(parts[2] ?? '');
      if (!params || parts.length !== 5) return false;
      const [n, r, p] = [2 ** Number(params[1]), Number(params[2]), Number(params[3])];
      const expected = b64(parts[4]!);
      const derived = await scryptAsync(password, b64(parts[3]!), expected.length, { N: n, r, p, maxmem: 128 * n * r + 1024 * 1024 });
      return sameBytes(derived, expected);
    }
    case 'firebase-scrypt': {
      const params = /^r=(\d+),m=(\d+)$/.exec(parts[2] ?? '');
      if (!params || parts.length !== 7) return false;
      const derived = await firebaseScryptHash(password, { salt: b64(parts[3]!), separator: b64(parts[4]!), signerKey: b64(parts[5]!), rounds: Number(params[1]), memCost: Number(params[2]) });
      return sameBytes(derived, b64(parts[6]!));
    }
    case 'pbkdf2-sha1':
    case 'pbkdf2-sha256':
    case 'pbkdf2-sha512': {
      const iterations = /^i=(\d+)$/.exec(parts[2] ?? '');
      if (!iterations || parts.length !== 5) return false;
      const expected = b64(parts[4]!);
      const derived = await pbkdf2Async(password, b64(parts[3]!), Number(iterations[1]), expected.length, parts[1].slice('pbkdf2-'.length));
      return sameBytes(derived, expected);
    }
    case 'md5':
    case 'sha1':
    case 'sha256':
    case 'sha512': {
      if (parts.length !== 5) return false;
      const digest = createHash(parts[1]).update(withSalt(password, parts[2]!, b64(parts[3]!))).digest();
      return sameBytes(digest, Buffer.from(parts[4]!, 'hex'));
    }
    default:
      return false;
  }
}
