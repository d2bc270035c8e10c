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
 * Password hashes computed at once: one per core plus one (so a thread never waits for the event loop to
 * hand it the next hash), leaving one of libuv's threads (4 unless UV_THREADPOOL_SIZE says otherwise) to
 * the RS256 signature that follows every sign-in. Each argon2id computation holds 19 MiB; four at once on
 * a 2-core machine were no faster than three and kept ~40 MB more after a sign-in load (bench/README.md).
 */
const THREAD_POOL_SIZE = Number(process.env.UV_THREADPOOL_SIZE) || 4;
export const PASSWORD_HASH_SLOTS = Math.max(1, Math.min(availableParallelism() + 1, THREAD_POOL_SIZE - 1));
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
