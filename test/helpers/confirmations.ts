import { generateKeyPairSync, sign, type KeyObject } from 'node:crypto';
import { startConfirmationsSim, type ConfirmationsSim, type FailMode, type SimChallenge } from '../../tools/confirmations-sim.js';

// The donation-confirmation provider simulator, driven over HTTP the way a real provider would be,
// and the bot side of Ed25519 (key pairs, signatures), written the way a bot client would write it.

export type { ConfirmationsSim };

/** Starts the simulator in this process on a free loopback port. */
export const startSim = () => startConfirmationsSim({ port: 0, host: '127.0.0.1' });

async function simCall<T>(sim: ConfirmationsSim, method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(sim.url + path, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`simulator ${method} ${path} answered ${response.status}: ${await response.text()}`);
  return (await response.json()) as T;
}

/** Creates a donation challenge (PENDING). */
export const createDonation = (sim: ConfirmationsSim, usd = 2, chain = 'btc') =>
  simCall<SimChallenge>(sim, 'POST', '/challenges', { chain, usd_amount: usd });

/** The donation arrives: the challenge becomes CONFIRMED. */
export const confirmDonation = (sim: ConfirmationsSim, id: string) => simCall<SimChallenge>(sim, 'POST', `/challenges/${id}/confirm`);

export const expireDonation = (sim: ConfirmationsSim, id: string) => simCall<SimChallenge>(sim, 'POST', `/challenges/${id}/expire`);

/** A created and confirmed challenge id. */
export async function confirmedChallenge(sim: ConfirmationsSim, usd = 2): Promise<string> {
  const { challenge_id } = await createDonation(sim, usd);
  await confirmDonation(sim, challenge_id);
  return challenge_id;
}

export const setFailMode = (sim: ConfirmationsSim, mode: FailMode) => simCall(sim, 'POST', '/_sim/fail', { mode });

export interface BotKeys {
  privateKey: KeyObject;
  /** Standard base64 of the raw 32-byte public key, as POST /v1/bot/signup takes it. */
  publicKey: string;
}

/** A fresh Ed25519 key pair; the raw public key is the last 32 bytes of its SPKI DER form. */
export function newBotKeys(): BotKeys {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
  return { privateKey, publicKey: raw.toString('base64') };
}

/** The body of POST /v1/bot/auth: base64 Ed25519 signature of `service:bot_auth:{app_id}:{bot_id}:{timestamp}`. */
export function botAuthBody(keys: BotKeys, appId: string, botId: string, timestamp = Math.floor(Date.now() / 1000)) {
  const message = `service:bot_auth:${appId}:${botId}:${timestamp}`;
  return { bot_id: botId, timestamp, signature: sign(null, Buffer.from(message), keys.privateKey).toString('base64') };
}
