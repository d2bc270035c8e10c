import { revokeUserSessions } from './revocations.js';
import { SYSTEM_CONTEXT } from '../events/types.js';
import { addSeconds, iso } from '../../clock.js';
import { newOpaqueToken, newUuid, safeEqual, sha256Hex } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { badRequest, forbidden, unauthorized } from '../../errors.js';
import * as applications from '../../store/repos/applications.js';
import type { Application } from '../../store/repos/applications.js';
import * as sessions from '../../store/repos/sessions.js';
import * as ssoTokens from '../../store/repos/sso-tokens.js';
import * as signUps from '../../store/repos/user-sign-ups.js';
import * as users from '../../store/repos/users.js';
import type { User } from '../../store/repos/users.js';
import { isUniqueViolation } from '../../store/dialect.js';
import { inTransaction } from '../../store/transaction.js';
import { allowedOriginsOf, checkRedirectAgainst } from '../apps/origins.js';
import { forgetEarlierHolder } from '../accounts/first-proof.js';
import { finishSignIn, type SignInResult } from '../mfa/sign-in.js';
import type { ClientInfo } from './sessions.js';

// Cross-domain single sign-on between apps of one tenant (docs/sso.md).
// The bridge, on the source app's domain, turns the browser's session into a one-time token bound to
// user, source app and the destination origin; the exchange, on the target app, turns it into a session.

export type SsoDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'keys' | 'secrets'>;

export const SSO_TOKEN_PARAM = '__sso_token';

const invalidToken = () => unauthorized('invalid or expired SSO token', 'invalid_token');
const wrongNonce = () => unauthorized('the SSO token was not asked for by this page (nonce mismatch)', 'invalid_token');

/**
 * Bridge: mints an SSO token for the signed-in user of `source` and answers the URL to send the browser
 * to: `returnTo` with its own query kept plus `__sso_token`. `returnTo`'s origin must be on the
 * allow-list of an app of the source's tenant, so a token never travels to a stranger's site.
 * `nonce`, when the destination page started the hop, binds the token to that page: only an exchange
 * that presents the same nonce redeems it, so a token minted by someone else's browser (login CSRF)
 * is useless in a page that did not ask for it.
 */
export async function startSsoHop(deps: SsoDeps, source: Application, userId: string, returnTo: string, nonce?: string): Promise<string> {
  const user = await users.findUserById(deps.db, source.id, userId);
  if (!user) throw unauthorized('session is revoked or expired');
  if (user.isBot || user.email === null) throw badRequest('bots cannot use single sign-on');
  const tenantApps = await applications.listApplicationsOfTenant(deps.db, source.tenantId);
  const target = checkRedirectAgainst([...new Set(tenantApps.flatMap(allowedOriginsOf))], returnTo, 'return_to');
  // A second __sso_token already in return_to could be read before ours by the receiving page.
  if (target.searchParams.has(SSO_TOKEN_PARAM)) throw badRequest(`return_to must not carry ${SSO_TOKEN_PARAM}`, 'invalid_redirect');

  const token = newOpaqueToken('sso_');
  const now = deps.clock.now();
  await ssoTokens.insertSsoToken(deps.db, {
    token_hash: sha256Hex(token),
    tenant_id: source.tenantId,
    source_app_id: source.id,
    user_id: user.id,
    origin: target.origin,
    nonce_hash: nonce === undefined ? null : sha256Hex(nonce),
    expires_at: iso(addSeconds(now, deps.config.ssoTokenTtlSeconds)),
    used_at: null,
    created_at: iso(now),
  });
  // Appended as text, not through searchParams, so return_to's own query keeps its exact encoding.
  target.search = `${target.search ? `${target.search}&` : '?'}${SSO_TOKEN_PARAM}=${token}`;
  return target.toString();
}

/**
 * Exchange: consumes the token for the target app and starts a session for the user of the same email
 * there (created when missing). A token of another tenant is refused with 403 and left unconsumed, so
 * a wrong app cannot burn it; every other failure is 401. The nonce must be the one the token was bound
 * to, or absent for both (a hop without a nonce, as docs/sso.md has it). A user created here takes the
 * source user's locale, else `browserLocale` (the exchange's Accept-Language), as a sign-up does.
 */
export async function exchangeSsoToken(deps: SsoDeps, target: Application, token: string, client?: ClientInfo, nonce?: string, browserLocale: string | null = null): Promise<SignInResult> {
  const tokenHash = sha256Hex(token);
  const now = iso(deps.clock.now());
  // This read only picks the error; the conditional UPDATE below is what consumes.
  const found = await ssoTokens.findSsoTokenByHash(deps.db, tokenHash);
  if (!found || found.used_at !== null || found.expires_at <= now) throw invalidToken();
  if (found.tenant_id !== target.tenantId) throw forbidden('cross-tenant SSO is not allowed', 'cross_tenant');
  // The bridge bound the token to one destination origin: only an app serving that origin may redeem it.
  if (!allowedOriginsOf(target).includes(found.origin)) throw invalidToken();
  if (!nonceMatches(found.nonce_hash, nonce)) throw wrongNonce();
  const claimed = await ssoTokens.consumeSsoToken(deps.db, target.tenantId, tokenHash, now);
  if (!claimed) throw invalidToken();

  const source = await users.findUserById(deps.db, claimed.source_app_id, claimed.user_id);
  if (!source || source.email === null) throw invalidToken();
  const user = await linkUser(deps, target, { ...source, email: source.email }, source.locale ?? browserLocale);
  return finishSignIn(deps, target, user, ['sso'], { method: 'sso' }, client);
}

/**
 * A token bound to a nonce needs that nonce; a page that holds a nonce accepts only a token bound to it
 * (a token without one, handed to a page waiting for its own hop, is someone else's). Left unconsumed on
 * a mismatch, like a wrong origin: whoever saw the token in an address cannot burn the right page's hop.
 */
function nonceMatches(boundHash: string | null, nonce: string | undefined): boolean {
  if (boundHash === null || nonce === undefined) return boundHash === null && nonce === undefined;
  return safeEqual(boundHash, sha256Hex(nonce));
}

/**
 * The target app's user for the source user's email: created when missing (email_verified carried
 * over, no password), else linked. Concurrent exchanges cannot create two users: the unique constraint
 * decides and the loser reads the winner's row.
 */
async function linkUser(deps: SsoDeps, target: Application, source: User & { email: string }, locale: string | null): Promise<User> {
  const existing = await users.findUserByEmail(deps.db, target.id, source.email);
  if (existing) return linkExisting(deps, target, existing, source);
  const row = users.emailUserRow({
    id: newUuid(),
    appId: target.id,
    email: source.email,
    emailVerified: source.emailVerified,
    passwordHash: null,
    requiresVerification: false,
    now: iso(deps.clock.now()),
    locale,
  });
  try {
    await users.insertUser(deps.db, row);
    return users.toUser(row);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    const winner = await users.findUserByEmail(deps.db, target.id, source.email);
    if (!winner) throw error;
    return linkExisting(deps, target, winner, source);
  }
}

/**
 * Links into a user that already exists in the target app. Only a verified source email may do so: an
 * unproven address must not open someone else's account. Linking a verified email into an unverified
 * user applies the pre-hijacking rule: whoever created that account before the owner (and set its
 * password) loses it, password, sessions, OAuth links and second factors, before the owner's session is made.
 */
async function linkExisting(deps: SsoDeps, target: Application, existing: User, source: User): Promise<User> {
  if (!source.emailVerified) {
    throw unauthorized('the email is not verified in the source application, so it cannot sign in to an existing account', 'email_not_verified');
  }
  if (existing.emailVerified) return existing;
  const now = iso(deps.clock.now());
  await inTransaction(deps.db, async (trx) => {
    if (await signUps.claimUnverifiedUser(trx, target.id, existing.id, now)) {
      await revokeUserSessions(trx, existing.id, { app: target, reason: 'claimed', context: SYSTEM_CONTEXT, now: new Date(now) });
      // OAuth links and factors made before the email was proven go with the password (docs/oauth.md, docs/mfa.md).
      await forgetEarlierHolder(trx, target.id, existing.id);
    }
  });
  return (await users.findUserById(deps.db, target.id, existing.id)) ?? existing;
}
