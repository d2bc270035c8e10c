import { iso } from '../../clock.js';
import { decodePublicKey, publicKeyFromRaw, verifyEd25519 } from '../../crypto/ed25519.js';
import { newUuid, sha256Hex } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { badRequest, conflict, notFound, unauthorized } from '../../errors.js';
import type { Application } from '../../store/repos/applications.js';
import { insertBotAuthReplay } from '../../store/repos/bot-auth-replays.js';
import { insertDonationChallengeUse } from '../../store/repos/donation-challenges.js';
import * as users from '../../store/repos/users.js';
import { isUniqueViolation } from '../../store/dialect.js';
import { inTransaction } from '../../store/transaction.js';
import { startSession, type ClientInfo, type SessionTokens } from '../sessions/sessions.js';

/** docs/rate-limits.md: a bot-auth timestamp may be this far from server time, either way. */
export const BOT_AUTH_TOLERANCE_SECONDS = 5 * 60;

type BotDeps = Pick<Deps, 'db' | 'clock' | 'keys' | 'confirmations' | 'secrets'>;

/** The exact text a bot signs (docs/bots.md); it begins with the literal word `service`. */
export const botAuthMessage = (appId: string, botId: string, timestamp: number) => `service:bot_auth:${appId}:${botId}:${timestamp}`;

/**
 * Registers a bot with a confirmed donation challenge. The challenge is spent and the bot created in one
 * transaction: if the key is already registered the spend rolls back and the challenge stays usable.
 */
export async function signUpBot(deps: BotDeps, app: Application, input: { challengeId: string; publicKey: string }): Promise<{ bot_id: string; public_key: string }> {
  const raw = decodePublicKey(input.publicKey);
  if (!raw || !publicKeyFromRaw(raw)) throw badRequest('public_key must be the standard base64 of a 32-byte Ed25519 public key');
  // Canonical text, so the (app_id, public_key) unique constraint is uniqueness on the bytes.
  const publicKey = raw.toString('base64');

  // The provider call is slow and outside any transaction; its status is final once CONFIRMED.
  const challenge = await deps.confirmations.getChallenge(input.challengeId);
  if (challenge.status !== 'CONFIRMED') {
    throw badRequest(`donation challenge is ${challenge.status.toLowerCase()}, not confirmed`, 'challenge_not_confirmed');
  }
  if (challenge.usdAmount < app.botMinUsdCents / 100) {
    throw badRequest(`donation of ${challenge.usdAmount} USD is under this app's minimum of ${app.botMinUsdCents / 100} USD`, 'challenge_not_confirmed');
  }

  const now = iso(deps.clock.now());
  const botId = newUuid();
  await inTransaction(deps.db, async (trx) => {
    try {
      // The provider's spelling of the id: one challenge, one row, however the client wrote it.
      await insertDonationChallengeUse(trx, app.id, challenge.challengeId, 'bot', now);
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('donation challenge was already used', 'challenge_used');
      throw error;
    }
    try {
      await users.insertUser(trx, {
        id: botId,
        app_id: app.id,
        email: null,
        email_normalized: null,
        email_verified: 0,
        password_hash: null,
        is_bot: 1,
        public_key: publicKey,
        created_at: now,
        updated_at: now,
      });
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict('this public key is already registered in this app', 'key_registered');
      throw error;
    }
  });
  return { bot_id: botId, public_key: publicKey };
}

/**
 * Authenticates a bot by its Ed25519 signature over botAuthMessage and starts a session. Each signature
 * is accepted once: a replay inside the tolerance window is refused, and outside it the timestamp is.
 */
export async function authenticateBot(
  deps: BotDeps,
  app: Application,
  input: { botId: string; timestamp: number; signature: string },
  client?: ClientInfo,
): Promise<SessionTokens> {
  const nowSeconds = Math.floor(deps.clock.now().getTime() / 1000);
  if (Math.abs(nowSeconds - input.timestamp) > BOT_AUTH_TOLERANCE_SECONDS) {
    throw unauthorized('timestamp is more than 5 minutes from server time', 'invalid_signature');
  }
  const bot = await users.findUserById(deps.db, app.id, input.botId);
  if (!bot || !bot.isBot || !bot.publicKey) throw notFound('bot not found');

  const key = publicKeyFromRaw(Buffer.from(bot.publicKey, 'base64'));
  const signature = Buffer.from(input.signature, 'base64');
  if (!key || !verifyEd25519(key, botAuthMessage(app.id, bot.id, input.timestamp), signature)) {
    throw unauthorized('invalid signature', 'invalid_signature');
  }

  // Keyed on the decoded bytes: the same signature spelled in other base64 is still the same signature.
  const expiresAt = iso(new Date((input.timestamp + BOT_AUTH_TOLERANCE_SECONDS) * 1000));
  try {
    await insertBotAuthReplay(deps.db, app.id, sha256Hex(signature), expiresAt);
  } catch (error) {
    if (isUniqueViolation(error)) throw unauthorized('this signature was already used', 'invalid_signature');
    throw error;
  }
  return startSession(deps, app, bot, { client, amr: ['bot'], opening: { method: 'bot' } });
}
