import { iso } from '../../clock.js';
import { decodeChallenge, encodeChallenge, HASHCASH_PARAMS, meetsDifficulty, proofHash, validNonce, type HashcashParams } from '../../crypto/hashcash.js';
import { sha256Hex } from '../../crypto/ids.js';
import type { Config } from '../../config/index.js';
import type { Deps } from '../../deps.js';
import { ApiError } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import * as spent from '../../store/repos/hashcash-spent.js';
import { hashcashRequired } from '../apps/apps.js';

// Hashcash proof-of-work for sign-up (docs/api.md and docs/auth.md and docs/hashcash.md). Challenges are
// self-verifying (MAC'd), so issuing one stores nothing; spending one inserts its hash once.

export type HashcashDeps = Pick<Deps, 'config' | 'db' | 'clock' | 'secrets'>;

/** The challenge object of docs/api.md, as POST /v1/challenges answers it. */
export interface ChallengeView {
  challenge: string;
  difficulty: number;
  algorithm: 'argon2id';
  params: HashcashParams;
  expires_in: number;
}

export interface Proof {
  challenge: string;
  nonce: string;
}

const invalid = (detail: string) => new ApiError(400, 'hashcash_invalid', detail);

/** A new challenge for this app at the app's difficulty, valid for HASHCASH_TTL_SECONDS. */
export function issueChallenge(deps: HashcashDeps, app: Application): ChallengeView {
  const challenge = encodeChallenge(deps.secrets.hashcash, {
    appId: app.id,
    issuedAtMs: deps.clock.now().getTime(),
    difficulty: app.hashcashDifficulty,
  });
  return {
    challenge,
    difficulty: app.hashcashDifficulty,
    algorithm: 'argon2id',
    params: { ...HASHCASH_PARAMS },
    expires_in: deps.config.hashcashTtlSeconds,
  };
}

/** 422 when this app requires proof-of-work (its --hashcash, else HASHCASH_ENABLED) and none was sent. */
export function requireProof(app: Application, config: Pick<Config, 'hashcashEnabled'>, hashcash?: Proof | null): void {
  if (hashcashRequired(app, config.hashcashEnabled) && !hashcash) {
    throw new ApiError(422, 'hashcash_required', 'proof-of-work required: get a challenge from POST /v1/challenges');
  }
}

/**
 * Checks a proof and spends its challenge, in docs/hashcash.md's order: shape and MAC (400), app (400),
 * expiry (410), already spent (410), then the one argon2 hash (400 when short; the challenge stays spent,
 * so a client cannot retry nonces against the server). Resolves when the proof is good.
 */
export async function spendProof(deps: HashcashDeps, app: Application, proof: Proof): Promise<void> {
  const fields = decodeChallenge(deps.secrets.hashcash, proof.challenge);
  if (!fields) throw invalid('hashcash challenge is not valid: get one from POST /v1/challenges');
  if (!validNonce(proof.nonce)) throw invalid('hashcash nonce must be 1-64 characters');
  if (fields.appId !== app.id) throw invalid('hashcash challenge was issued for another application');

  // The TTL is read now rather than bound in the challenge, so lowering it takes effect at once.
  const expiresAt = new Date(fields.issuedAtMs + deps.config.hashcashTtlSeconds * 1000);
  if (deps.clock.now() >= expiresAt) {
    throw new ApiError(410, 'hashcash_expired', 'hashcash challenge has expired: get a new one from POST /v1/challenges');
  }

  // Consumed before the hash is checked: one insert that only one request, on any node, can win.
  const won = await spent.insertSpentChallenge(deps.db, app.id, sha256Hex(proof.challenge), iso(expiresAt));
  if (!won) throw new ApiError(410, 'challenge_used', 'hashcash challenge was already used: get a new one from POST /v1/challenges');

  // Difficulty 0 accepts any nonce: skip the hash, the challenge itself was the check.
  if (fields.difficulty === 0) return;
  const hash = await proofHash(proof.challenge, proof.nonce);
  if (!meetsDifficulty(hash, fields.difficulty)) {
    throw invalid(`proof-of-work does not meet the difficulty of ${fields.difficulty} leading zero bits; get a new challenge`);
  }
}

/** Both checks as the sign-up route needs them: 422 when required and missing; a proof sent where none is required is ignored. */
export async function checkSignupProof(deps: HashcashDeps, app: Application, hashcash?: Proof | null): Promise<void> {
  requireProof(app, deps.config, hashcash);
  if (hashcash && hashcashRequired(app, deps.config.hashcashEnabled)) await spendProof(deps, app, hashcash);
}

/** Prunes this app's spent-challenge rows that expired over 10 minutes ago (the margin covers clock skew between nodes). */
export async function pruneSpentChallenges(deps: HashcashDeps, appId: string): Promise<number> {
  return spent.deleteSpentChallengesExpiredBefore(deps.db, appId, iso(new Date(deps.clock.now().getTime() - 10 * 60_000)));
}
