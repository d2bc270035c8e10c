import { addSeconds, iso } from '../../clock.js';
import { hmacHex } from '../../crypto/derive.js';
import { newOpaqueToken, newSixDigitCode, newUuid, safeEqual, sha256Hex } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import type { Mail } from '../../mail/mailer.js';
import { seal } from '../../crypto/envelope.js';
import { enqueueMail, outboxMailBinding } from '../mail/outbox.js';
import { composeEmail, type EmailUser } from '../mail/compose.js';
import type { Application } from '../../store/repos/applications.js';
import * as challenges from '../../store/repos/email-challenges.js';
import type { ChallengePurpose } from '../../store/repos/email-challenges.js';
import { inTransaction } from '../../store/transaction.js';
import type { EmailChallengeRow } from '../../store/types.js';

export const CODE_SECONDS = 10 * 60;
export const CODE_MAX_ATTEMPTS = 5;
export const VERIFY_LINK_SECONDS = 24 * 3600;
export const MAGIC_LINK_SECONDS = 15 * 60;
/** A reset link sets a password and signs in: shorter-lived than a verification link. */
export const RESET_LINK_SECONDS = 60 * 60;

/**
 * verify_email: sent at sign-up, to whoever chose the password. claim_email: a later verification
 * email for an unverified account (magic-link sign-in); whoever opens it proves the inbox but not that
 * they set the password, so it applies the pre-hijacking rule. magic_link: sign-in of a verified user.
 * password_reset and change_email (docs/account.md) are no sign-in: their codes and links are
 * refused by verify-code and /v1/email/verify, and theirs are refused everywhere else.
 */
export type Purpose = ChallengePurpose;
export type SignInPurpose = 'verify_email' | 'claim_email' | 'magic_link';
export const SIGN_IN_PURPOSES: readonly SignInPurpose[] = ['verify_email', 'claim_email', 'magic_link'];
export const isSignInPurpose = (purpose: Purpose): purpose is SignInPurpose => (SIGN_IN_PURPOSES as readonly string[]).includes(purpose);
export type VerificationDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'secrets' | 'masterKey' | 'mailSignal'>;

/** How long each purpose's link lives (codes live CODE_SECONDS whatever their purpose). */
const LINK_SECONDS: Record<Purpose, number> = {
  verify_email: VERIFY_LINK_SECONDS,
  claim_email: VERIFY_LINK_SECONDS,
  magic_link: MAGIC_LINK_SECONDS,
  password_reset: RESET_LINK_SECONDS,
  change_email: VERIFY_LINK_SECONDS,
};

/** The code's keyed hash: bound to app and email, so a leaked table cannot be brute-forced offline. */
export const codeHash = (deps: Pick<Deps, 'secrets'>, appId: string, email: string, code: string) =>
  hmacHex(deps.secrets.codes, `${appId}:${email}:${code}`);

/** Where emailed links point: the app's verified domain when it has one, else PUBLIC_BASE_URL. */
function linkBase(deps: VerificationDeps, app: Application): string {
  return app.domain ? `https://${app.domain}` : deps.config.publicBaseUrl;
}

export interface ChallengeOptions {
  /** The address the email goes to (a change of email: the new one); by default the user's. */
  to?: string;
  /** The emailed link for a token; by default `{base}/v1/email/verify?token=...`. */
  link?: (token: string) => string;
}

/** A challenge row and its email, made but not stored (password reset does this work for every email). */
export interface PreparedChallenge {
  row: EmailChallengeRow;
  mail: Mail;
}

/**
 * Makes the code and/or link (the app's verification_method), the row that keeps their hashes and the email,
 * in the user's language and the app's words (services/mail/compose.ts reads the app's template).
 */
export async function prepareEmailChallenge(
  deps: VerificationDeps,
  app: Application,
  user: EmailUser & { email: string },
  purpose: Purpose,
  redirectUrl: string | null,
  options: ChallengeOptions = {},
): Promise<PreparedChallenge> {
  const now = deps.clock.now();
  const to = options.to ?? user.email;
  const email = to.trim().toLowerCase();
  const method = app.verificationMethod;
  const code = method === 'link' ? undefined : newSixDigitCode();
  const linkToken = method === 'code' ? undefined : newOpaqueToken(purpose === 'password_reset' ? 'pr_' : purpose === 'change_email' ? 'ec_' : 'el_');
  const linkSeconds = LINK_SECONDS[purpose];
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
    new_email: purpose === 'change_email' ? to.trim() : null,
  };
  const defaultLink = (token: string) => `${linkBase(deps, app)}/v1/email/verify?token=${encodeURIComponent(token)}`;
  const link = linkToken ? (options.link ?? defaultLink)(linkToken) : undefined;
  const mail = await composeEmail(deps.db, app, purpose === 'claim_email' ? 'verify_email' : purpose, {
    to,
    user,
    values: { code, link },
    durations: { ...(code && { code_valid_for: CODE_SECONDS }), ...(link && { link_valid_for: linkSeconds }) },
  });
  return { row, mail };
}

/**
 * Stores a prepared challenge, replacing the live one it supersedes (one per (app, email, purpose); a
 * change of email: one per user), and queues its email through the outbox in the same transaction (the
 * caller's, when it passes one): nothing here waits on the mail relay.
 */
export async function storeEmailChallenge(deps: VerificationDeps, prepared: PreparedChallenge): Promise<void> {
  const { row, mail } = prepared;
  await inTransaction(deps.db, async (trx) => {
    if (row.purpose === 'change_email') {
      // Keyed by user: two users asking for the same new address must not retire each other's challenge.
      await challenges.retireUserChallenges(trx, row.app_id, row.user_id, 'change_email', row.created_at);
      await challenges.insertEmailChallenge(trx, row);
    } else {
      await challenges.replaceEmailChallenge(trx, row);
    }
    await enqueueMail({ ...deps, db: trx }, row.app_id, mail);
  });
  if (!deps.db.isTransaction) deps.mailSignal.wake();
}

/**
 * The work of storeEmailChallenge without its effects, for a request that must cost the same whether or
 * not the account exists (password reset): the message is sealed as the outbox would seal it and the
 * challenge's transaction runs its retiring UPDATE, which finds nothing to retire; nothing is stored or sent.
 */
export async function rehearseEmailChallenge(deps: VerificationDeps, prepared: PreparedChallenge): Promise<void> {
  const { row, mail } = prepared;
  seal(deps.masterKey, JSON.stringify(mail), outboxMailBinding(row.id));
  await inTransaction(deps.db, (trx) => challenges.retireEmailChallenges(trx, row.app_id, row.email_normalized, row.purpose, row.created_at));
}

/** Emails a code, a link or both for `purpose` to the user (or `options.to`), replacing any live challenge it supersedes: prepareEmailChallenge, then storeEmailChallenge. */
export async function sendEmailChallenge(...request: Parameters<typeof prepareEmailChallenge>): Promise<void> {
  const [deps] = request;
  await storeEmailChallenge(deps, await prepareEmailChallenge(...request));
}

/**
 * Consumes a 6-digit code for the email. The attempt is counted first, in the same write that reads the
 * live codes (see countCodeAttempt); only the rows that write returned are compared, in constant time.
 */
export async function consumeCode(
  deps: VerificationDeps,
  appId: string,
  email: string,
  code: string,
  purposes: readonly Purpose[] = SIGN_IN_PURPOSES,
): Promise<EmailChallengeRow | undefined> {
  const now = iso(deps.clock.now());
  const normalized = email.trim().toLowerCase();
  const counted = await challenges.countCodeAttempt(deps.db, appId, normalized, purposes, CODE_MAX_ATTEMPTS, now);
  const sent = codeHash(deps, appId, normalized, code);
  const match = counted.find((row) => row.code_hash !== null && safeEqual(row.code_hash, sent));
  return match && challenges.consumeChallenge(deps.db, appId, match.id, now);
}

/** Consumes an emailed link token of one of `purposes` (by default a sign-in link); of `appId`'s when given. */
export async function consumeLink(
  deps: VerificationDeps,
  token: string,
  purposes: readonly Purpose[] = SIGN_IN_PURPOSES,
  appId?: string,
): Promise<EmailChallengeRow | undefined> {
  return challenges.consumeByLink(deps.db, sha256Hex(token), purposes, iso(deps.clock.now()), appId);
}

/** The app's live challenge of a link token, read without consuming it (or undefined). */
export async function peekLink(deps: VerificationDeps, appId: string, token: string, purposes: readonly Purpose[]): Promise<EmailChallengeRow | undefined> {
  return challenges.findLiveByLink(deps.db, appId, sha256Hex(token), purposes, iso(deps.clock.now()));
}

/**
 * Consumes the user's code of `purpose` (a change of email), counted as consumeCode counts: the attempt
 * and the read are one write, so at most CODE_MAX_ATTEMPTS guesses are ever compared.
 */
export async function consumeUserCode(deps: VerificationDeps, appId: string, userId: string, purpose: Purpose, code: string): Promise<EmailChallengeRow | undefined> {
  const now = iso(deps.clock.now());
  const counted = await challenges.countUserCodeAttempt(deps.db, appId, userId, purpose, CODE_MAX_ATTEMPTS, now);
  const match = counted.find((row) => row.code_hash !== null && safeEqual(row.code_hash, codeHash(deps, appId, row.email_normalized, code)));
  return match && challenges.consumeChallenge(deps.db, appId, match.id, now);
}

/** Consumes the user's link token of `purpose`: a token of another user or purpose is refused and stays live. */
export async function consumeUserLink(deps: VerificationDeps, appId: string, userId: string, purpose: Purpose, token: string): Promise<EmailChallengeRow | undefined> {
  return challenges.consumeUserLink(deps.db, appId, userId, purpose, sha256Hex(token), iso(deps.clock.now()));
}
