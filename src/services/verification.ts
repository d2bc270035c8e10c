import { addSeconds, iso } from '../clock.js';
import { hmacHex } from '../crypto/derive.js';
import { newOpaqueToken, newSixDigitCode, newUuid, safeEqual, sha256Hex } from '../crypto/ids.js';
import type { Deps } from '../deps.js';
import { verificationEmail } from '../mail/templates.js';
import { enqueueMail } from './mail-outbox.js';
import type { Application } from '../store/repos/applications.js';
import * as challenges from '../store/repos/email-challenges.js';
import type { User } from '../store/repos/users.js';
import { inTransaction } from '../store/transaction.js';
import type { EmailChallengeRow } from '../store/types.js';

export const CODE_SECONDS = 10 * 60;
export const CODE_MAX_ATTEMPTS = 5;
export const VERIFY_LINK_SECONDS = 24 * 3600;
export const MAGIC_LINK_SECONDS = 15 * 60;

/**
 * verify_email: sent at sign-up, to whoever chose the password. claim_email: a later verification
 * email for an unverified account (magic-link sign-in); whoever opens it proves the inbox but not that
 * they set the password, so it applies the pre-hijacking rule. magic_link: sign-in of a verified user.
 */
export type Purpose = 'verify_email' | 'claim_email' | 'magic_link';
export type VerificationDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'secrets' | 'masterKey' | 'mailSignal'>;

/** The code's keyed hash: bound to app and email, so a leaked table cannot be brute-forced offline. */
export const codeHash = (deps: Pick<Deps, 'secrets'>, appId: string, email: string, code: string) =>
  hmacHex(deps.secrets.codes, `${appId}:${email}:${code}`);

/** Where emailed links point: the app's verified domain when it has one, else PUBLIC_BASE_URL. */
function linkBase(deps: VerificationDeps, app: Application): string {
  return app.domain ? `https://${app.domain}` : deps.config.publicBaseUrl;
}

/**
 * Emails a code, a link or both (the app's verification_method) for `purpose`, replacing any live
 * challenge of the same purpose. The email goes through the outbox in the challenge's transaction (the
 * caller's, when it passes one): nothing here waits on the mail relay.
 */
export async function sendEmailChallenge(
  deps: VerificationDeps,
  app: Application,
  user: User & { email: string },
  purpose: Purpose,
  redirectUrl: string | null,
): Promise<void> {
  const now = deps.clock.now();
  const email = user.email.toLowerCase();
  const method = app.verificationMethod;
  const code = method === 'link' ? undefined : newSixDigitCode();
  const linkToken = method === 'code' ? undefined : newOpaqueToken('el_');
  const linkSeconds = purpose === 'magic_link' ? MAGIC_LINK_SECONDS : VERIFY_LINK_SECONDS;
  const row: EmailChallengeRow = {
    id: newUuid(),
    app_id: app.id,
    user_id: user.id,
    email_normalized: email,
    purpose,
    code_hash: code ? codeHash(deps, app.id, email, code) : null,
    code_expires_at: code ? iso(addSeconds(now, CODE_SECONDS)) : null,
    link_hash: linkToken ? sha256Hex(linkToken) : null,
    link_expires_at: linkToken ? iso(addSeconds(now, linkSeconds)) : null,
    redirect_url: redirectUrl,
    attempts: 0,
    used_at: null,
    created_at: iso(now),
  };
  const link = linkToken ? `${linkBase(deps, app)}/v1/email/verify?token=${encodeURIComponent(linkToken)}` : undefined;
  const mail = verificationEmail({
    appName: app.name,
    to: user.email,
    purpose: purpose === 'magic_link' ? 'magic_link' : 'verify_email',
    code,
    link,
    codeMinutes: CODE_SECONDS / 60,
    linkMinutes: linkSeconds / 60,
  });
  await inTransaction(deps.db, async (trx) => {
    await challenges.replaceEmailChallenge(trx, row);
    await enqueueMail({ ...deps, db: trx }, app.id, mail);
  });
  if (!deps.db.isTransaction) deps.mailSignal.wake();
}

/**
 * Consumes a 6-digit code for the email. The attempt is counted first, in the same write that reads the
 * live codes (see countCodeAttempt); only the rows that write returned are compared, in constant time.
 */
export async function consumeCode(deps: VerificationDeps, appId: string, email: string, code: string): Promise<EmailChallengeRow | undefined> {
  const now = iso(deps.clock.now());
  const normalized = email.trim().toLowerCase();
  const counted = await challenges.countCodeAttempt(deps.db, appId, normalized, CODE_MAX_ATTEMPTS, now);
  const sent = codeHash(deps, appId, normalized, code);
  const match = counted.find((row) => row.code_hash !== null && safeEqual(row.code_hash, sent));
  return match && challenges.consumeChallenge(deps.db, appId, match.id, now);
}

/** Consumes an emailed link token. */
export async function consumeLink(deps: VerificationDeps, token: string): Promise<EmailChallengeRow | undefined> {
  return challenges.consumeByLink(deps.db, sha256Hex(token), iso(deps.clock.now()));
}
