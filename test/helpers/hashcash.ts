import { hashRaw, type Algorithm, type Version } from '@node-rs/argon2';
import { api } from './fixtures.js';
import type { TestServer } from './server.js';

// Algorithm and Version are const enums: empty objects at run time when a file is transpiled on its own (vitest).
const ARGON2ID = 2 as Algorithm.Argon2id;
/** Argon2 version 0x13, pinned rather than left to the library's default. */
const V0X13 = 1 as Version.V0x13;

// The reference hashcash client: docs/hashcash.md written out on its own, without the server's
// code, so the tests check the published encoding rather than the implementation against itself.

export interface ChallengeResponse {
  challenge: string;
  difficulty: number;
  algorithm: string;
  params: { time_cost: number; memory_cost: number; parallelism: number; hash_len: number };
  expires_in: number;
}

export interface Proof {
  challenge: string;
  nonce: string;
}

/** H = argon2id(password = UTF-8(challenge + ":" + nonce), salt = UTF-8(challenge), params). */
export function proofHash(challenge: ChallengeResponse, nonce: string): Promise<Buffer> {
  const { params } = challenge;
  return hashRaw(Buffer.from(`${challenge.challenge}:${nonce}`, 'utf8'), {
    algorithm: ARGON2ID,
    version: V0X13,
    timeCost: params.time_cost,
    memoryCost: params.memory_cost,
    parallelism: params.parallelism,
    outputLen: params.hash_len,
    salt: Buffer.from(challenge.challenge, 'utf8'),
  });
}

/** Leading zero bits from the most significant bit of byte 0. */
export function zeroBits(hash: Uint8Array): number {
  let bits = 0;
  for (const byte of hash) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}

/** Finds a nonce (decimal counter) whose proof hash has at least `difficulty` leading zero bits. */
export async function solve(challenge: ChallengeResponse): Promise<string> {
  for (let counter = 0; ; counter++) {
    const nonce = String(counter);
    if (zeroBits(await proofHash(challenge, nonce)) >= challenge.difficulty) return nonce;
  }
}

/** A nonce that does NOT meet the difficulty (most do; needs difficulty > 0). */
export async function wrongNonce(challenge: ChallengeResponse): Promise<string> {
  if (challenge.difficulty === 0) throw new Error('every nonce meets difficulty 0');
  for (let counter = 0; ; counter++) {
    const nonce = `miss-${counter}`;
    if (zeroBits(await proofHash(challenge, nonce)) < challenge.difficulty) return nonce;
  }
}

/** POST /v1/challenges for the app; throws unless it answers 200. */
export async function getChallenge(server: TestServer, publishableKey: string): Promise<ChallengeResponse> {
  const res = await api<ChallengeResponse>(server, 'POST', '/v1/challenges', { publishableKey });
  if (res.status !== 200) throw new Error(`POST /v1/challenges answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

/** A fresh, solved proof for a sign-up of the app with this publishable key. */
export async function getProof(server: TestServer, publishableKey: string): Promise<Proof> {
  const challenge = await getChallenge(server, publishableKey);
  return { challenge: challenge.challenge, nonce: await solve(challenge) };
}
