import { availableParallelism } from 'node:os';
import { Algorithm, hash, verify } from '@node-rs/argon2';
import { verifyLegacyHash } from './legacy-verify.js';

// OWASP's argon2id baseline: 19 MiB, 2 passes, 1 lane.
export const PASSWORD_PARAMS = { algorithm: Algorithm.Argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1, outputLen: 32 } as const;

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

/**
 * Runs at most `slots` of the given tasks at once, the rest in arrival order (password hashing: see
 * PASSWORD_HASH_SLOTS).
 */
export function limitConcurrency(slots: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  return async <T>(task: () => Promise<T>): Promise<T> => {
    if (running >= slots) await new Promise<void>((resolve) => waiting.push(resolve));
    else running += 1;
    try {
      return await task();
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running -= 1;
    }
  };
}

/**
 * Password hashes handed to libuv's thread pool at once: one per pool thread, at most one per core, plus
 * one more, so a thread that finishes a hash starts the next at once instead of idling until the event
 * loop gets a core to hand it one (the one more waits in the pool's queue when the pool has no more
 * threads than cores, as by default; with more threads it runs beside the others). Signatures and file
 * reads share the pool in arrival order and wait at most about one hash. The pool has one thread per
 * core, 2 to 4 (bin/gatehouse.js), unless UV_THREADPOOL_SIZE says otherwise. Each argon2id computation
 * holds 19 MiB while it runs: on 2 cores, two at once with a third queued sign in as many users a second
 * as three at once on 4 threads did, with 16-18 MB less at the peak (bench/README.md, 2026-11-26 22:08 UTC).
 */
export function passwordHashSlots(cores: number, threadPoolSize: number): number {
  return Math.max(1, Math.min(cores, threadPoolSize)) + 1;
}

/**
 * The thread pool size libuv reads from UV_THREADPOOL_SIZE: its leading whole number (C's atoi), 0 or none
 * meaning 1, at most 1024 (a negative number wraps past it); 4 when unset.
 */
export function threadPoolSizeFrom(value: string | undefined): number {
  if (value === undefined) return 4;
  const n = Number.parseInt(value, 10);
  if (Number.isNaN(n) || n === 0) return 1;
  return n < 0 || n > 1024 ? 1024 : n;
}

/** libuv's thread pool size in this process (UV_THREADPOOL_SIZE as bin/gatehouse.js left it before the pool started). */
export const THREAD_POOL_SIZE = threadPoolSizeFrom(process.env.UV_THREADPOOL_SIZE);
export const PASSWORD_HASH_SLOTS = passwordHashSlots(availableParallelism(), THREAD_POOL_SIZE);
const hashing = limitConcurrency(PASSWORD_HASH_SLOTS);

export function hashPassword(password: string): Promise<string> {
  return hashing(() => hash(password, PASSWORD_PARAMS));
}

/**
 * Whether the password matches the hash: argon2 (ours, or an imported argon2id/i/d PHC string) or one of
 * the imported families (crypto/legacy-verify.ts), each in a hashing slot.
 */
export async function verifyPassword(stored: string, password: string): Promise<boolean> {
  const passwordHash = unmarked(stored);
  try {
    return await hashing(() => (passwordHash.startsWith('$argon2') ? verify(passwordHash, password) : verifyLegacyHash(passwordHash, password)));
  } catch {
    return false;
  }
}

/** The prefix of every hash this service makes: anything else (an imported hash) is replaced at its next successful sign-in. */
const CURRENT_PREFIX = `$argon2id$v=19$m=${PASSWORD_PARAMS.memoryCost},t=${PASSWORD_PARAMS.timeCost},p=${PASSWORD_PARAMS.parallelism}$`;

/** True for a hash not of this service's own kind and cost (an imported one): re-hash it once the password proved right. */
export const needsRehash = (passwordHash: string) => !unmarked(passwordHash).startsWith(CURRENT_PREFIX);

/**
 * What the stored hash of a user with a verified second factor starts with (docs/upgrading.md, "Beside
 * 02c1d09: no"). Release 02c1d09 knows nothing of second factors: it hands argon2 the stored string as it is,
 * which refuses it, so that release's password sign-in answers 401 for such a user instead of a session.
 * This release takes the mark off before it checks (store/repos/password-marks.ts writes and removes it).
 */
export const SECOND_FACTOR_MARK = '$gatehouse-2fa$';

/** The hash itself, without the second-factor mark. */
export const unmarked = (stored: string) => (stored.startsWith(SECOND_FACTOR_MARK) ? stored.slice(SECOND_FACTOR_MARK.length) : stored);

let dummyHash: Promise<string> | undefined;

/**
 * Spends the same argon2 time as a real check when there is no hash to check against (unknown email,
 * user without a password), so response time does not tell whether an account exists.
 */
export async function burnPasswordCheck(password: string): Promise<false> {
  dummyHash ??= hashPassword('gatehouse-timing-equalizer');
  await verifyPassword(await dummyHash, password);
  return false;
}
