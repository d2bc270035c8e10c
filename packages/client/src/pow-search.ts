// The proof-of-work search itself (docs/hashcash.md, "The proof"): argon2id of `challenge:nonce` salted
// with the challenge, until the hash has `difficulty` leading zero bits. Runs inside a worker.
import type { Challenge } from './types.js';

export type Argon2id = (options: {
  password: Uint8Array;
  salt: Uint8Array;
  iterations: number;
  memorySize: number;
  parallelism: number;
  hashLength: number;
  outputType: 'binary';
}) => Promise<Uint8Array>;

export interface Proof {
  challenge: string;
  nonce: string;
  hashes: number;
}

function leadingZeroBits(bytes: Uint8Array): number {
  let bits = 0;
  for (const byte of bytes) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}

/** Finds the first nonce `0, 1, 2, ...` whose proof hash is short enough. */
export async function search(argon2id: Argon2id, { challenge, difficulty, params }: Pick<Challenge, 'challenge' | 'difficulty' | 'params'>): Promise<Proof> {
  const encoder = new TextEncoder();
  const salt = encoder.encode(challenge);
  for (let counter = 0; ; counter++) {
    const nonce = String(counter);
    const hash = await argon2id({
      password: encoder.encode(`${challenge}:${nonce}`),
      salt,
      iterations: params.time_cost,
      memorySize: params.memory_cost,
      parallelism: params.parallelism,
      hashLength: params.hash_len,
      outputType: 'binary',
    });
    if (leadingZeroBits(hash) >= difficulty) return { challenge, nonce, hashes: counter + 1 };
  }
}
