import { leadingZeroBits, NONCE_MAX, proofHash, type HashcashParams } from './hashcash.js';

/** The part of a `POST /v1/challenges` answer a solver needs. */
export interface ChallengeAnswer {
  challenge: string;
  difficulty: number;
  params: HashcashParams;
}

/**
 * Checks that `value` looks like a challenge answer (so a wrong paste fails with a message, not a
 * hang): a challenge string, a difficulty 0-32 and the argon2id params. Returns it, or throws.
 */
export function parseChallengeAnswer(value: unknown): ChallengeAnswer {
  const v = value as Partial<ChallengeAnswer> | null;
  if (!v || typeof v !== 'object') throw new Error('expected the JSON object POST /v1/challenges answers');
  if (typeof v.challenge !== 'string' || !v.challenge) throw new Error('"challenge" must be a non-empty string');
  if (!Number.isInteger(v.difficulty) || v.difficulty! < 0 || v.difficulty! > 32) throw new Error('"difficulty" must be a whole number 0-32');
  const p = v.params as Partial<HashcashParams> | undefined;
  for (const name of ['time_cost', 'memory_cost', 'parallelism', 'hash_len'] as const) {
    if (!p || !Number.isInteger(p[name]) || p[name]! < 1) throw new Error(`"params.${name}" must be a positive whole number`);
  }
  return { challenge: v.challenge, difficulty: v.difficulty!, params: p as HashcashParams };
}

/** Finds a nonce (a decimal counter) whose proof hash meets the difficulty; also says how many hashes it took. */
export async function solveChallenge(answer: ChallengeAnswer): Promise<{ nonce: string; hashes: number }> {
  for (let counter = 0; ; counter++) {
    const nonce = String(counter);
    if (nonce.length > NONCE_MAX) throw new Error('no nonce found');
    const hash = await proofHash(answer.challenge, nonce, answer.params);
    if (leadingZeroBits(hash) >= answer.difficulty) return { nonce, hashes: counter + 1 };
  }
}
