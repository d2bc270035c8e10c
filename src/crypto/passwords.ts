import { availableParallelism } from 'node:os';
import { Algorithm, hash, verify } from '@node-rs/argon2';

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
 * one more (waiting in the pool's queue when every thread is hashing), so a thread that finishes a hash
 * starts the next at once instead of idling until the event loop gets a core to hand it one. Signatures
 * and file reads share the pool in arrival order and wait at most about one hash. The pool has one thread
 * per core, 2 to 4
 * (bin/gatehouse.js), unless UV_THREADPOOL_SIZE says otherwise. Each argon2id computation holds 19 MiB
 * while it runs: on 2 cores, two at once with a third queued sign in as many users a second as three at
 * once on 4 threads did, with 19 MB less at the peak (bench/README.md, 2026-11-26 22:08 UTC).
 */
export function passwordHashSlots(cores: number, threadPoolSize: number): number {
  return Math.min(cores, threadPoolSize) + 1;
}

/** libuv's thread pool size in this process: UV_THREADPOOL_SIZE as it stood when the pool started, else libuv's 4. */
export const THREAD_POOL_SIZE = Number(process.env.UV_THREADPOOL_SIZE) || 4;
export const PASSWORD_HASH_SLOTS = passwordHashSlots(availableParallelism(), THREAD_POOL_SIZE);
const hashing = limitConcurrency(PASSWORD_HASH_SLOTS);

export function hashPassword(password: string): Promise<string> {
  return hashing(() => hash(password, PASSWORD_PARAMS));
}

export async function verifyPassword(passwordHash: string, password: string): Promise<boolean> {
  try {
    return await hashing(() => verify(passwordHash, password));
  } catch {
    return false;
  }
}

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
