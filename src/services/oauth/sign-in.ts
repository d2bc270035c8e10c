import { revokeUserSessions } from '../sessions/revocations.js';
import { SYSTEM_CONTEXT } from '../events/types.js';
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { addSeconds, iso } from '../../clock.js';
import { open, seal } from '../../crypto/envelope.js';
import { newUuid, sha256Hex } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { ApiError, badRequest } from '../../errors.js';
import type { AppleClientSecrets } from '../../providers/apple-secret.js';
import { newAuthorizationSecrets, OidcError, type IdTokenClaims, type OidcIssuers } from '../../providers/oidc.js';
import * as applications from '../../store/repos/applications.js';
import type { Application } from '../../store/repos/applications.js';
import * as identities from '../../store/repos/oauth-identities.js';
import * as providers from '../../store/repos/oauth-providers.js';
import type { OAuthProviderName } from '../../store/repos/oauth-providers.js';
import * as states from '../../store/repos/oauth-states.js';
import * as sessions from '../../store/repos/sessions.js';
import * as signUps from '../../store/repos/user-sign-ups.js';
import * as users from '../../store/repos/users.js';
import type { User } from '../../store/repos/users.js';
import type { OAuthProviderRow } from '../../store/types.js';
import { isUniqueViolation } from '../../store/dialect.js';
import { inTransaction } from '../../store/transaction.js';
import { flowFor } from './flows.js';
import { checkRedirect } from '../apps/origins.js';
import { forgetEarlierHolder } from '../accounts/first-proof.js';
import { finishSignIn, type SignInResult } from '../mfa/sign-in.js';
import type { ClientInfo } from '../sessions/sessions.js';
import { recordUserCreated } from '../accounts/users.js';
import type { EventContext } from '../events/types.js';

// OAuth sign-in with Google, Apple, GitHub, Microsoft and custom OpenID Connect providers (docs/oauth.md). Authorize keeps the
// PKCE verifier, nonce and redirect_url on the server under the hash of the state, for 10 minutes and
// one use, with the hash of a random value it hands the browser as a cookie: the state alone would let
// whoever stopped before their own callback send it to someone else and sign them in to the sender's
// account (login CSRF), so the callback completes only in the browser that holds the cookie.
// The callback consumes the state, lets openid-client exchange the code and check the ID token, then
// finds or makes the user by (provider, subject).

export type OAuthDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'keys' | 'masterKey' | 'masterKeys' | 'secrets'> & {
  issuers: OidcIssuers;
  appleSecrets: AppleClientSecrets;
};

export const STATE_TTL_SECONDS = 600;

/** The stable `?error=` codes of a failed callback (docs/oauth.md lists them). */
export type CallbackErrorCode =
  | 'invalid_state'
  | 'provider_not_configured'
  | 'provider_unavailable'
  | 'provider_error'
  | 'access_denied'
  | 'token_exchange_failed'
  | 'invalid_id_token'
  | 'email_missing'
  | 'email_not_verified'
  | 'app_paused';

/** A failed callback: sent back to `redirectUrl` with `?error=code` when it is known, else 400 `{detail}`. */
export class OAuthCallbackError extends Error {
  constructor(
    readonly code: CallbackErrorCode,
    readonly detail: string,
    readonly redirectUrl?: string,
    options?: { cause?: unknown },
  ) {
    super(detail, options);
  }
}

export const callbackUri = (deps: Pick<Deps, 'config'>, provider: OAuthProviderName) => `${deps.config.publicBaseUrl}/v1/oauth/${provider}/callback`;
export const verifierBinding = (stateHash: string) => `oauth-state:${stateHash}`;

/**
 * Starts a sign-in: checks redirect_url against the allow-list (400) and that the app configured the
 * provider (400), reads the issuer's discovery document (502 when unreachable), stores the state and
 * answers the issuer's authorization URL, with the browser binding the caller puts in a cookie (only
 * its hash is stored).
 */
export async function startAuthorization(
  deps: OAuthDeps,
  app: Application,
  provider: OAuthProviderName,
  redirectUrl: string,
): Promise<{ authorizationUrl: string; browserBinding: string }> {
  const target = checkRedirect(app, redirectUrl).toString();
  const row = await providers.findOAuthProvider(deps.db, app.id, provider);
  if (!row) throw badRequest(`${provider} sign-in is not configured for this application`, 'provider_not_configured');
  const flow = await flowFor(deps, row);
  const secrets = await newAuthorizationSecrets();
  const stateHash = sha256Hex(secrets.state);
  const browserBinding = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  await states.insertOAuthState(deps.db, {
    state_hash: stateHash,
    app_id: app.id,
    provider,
    code_verifier_sealed: seal(deps.masterKey, secrets.codeVerifier, verifierBinding(stateHash)),
    nonce: secrets.nonce,
    redirect_url: target,
    expires_at: iso(addSeconds(now, STATE_TTL_SECONDS)),
    used_at: null,
    created_at: iso(now),
    browser_binding_hash: sha256Hex(browserBinding),
  });
  const url = await flow.authorize({ redirectUri: callbackUri(deps, provider), state: secrets.state, nonce: secrets.nonce, codeChallenge: secrets.codeChallenge });
  return { authorizationUrl: url, browserBinding };
}

/** The parameters an issuer sends back to the callback (query for Google, form_post body for Apple). */
export interface CallbackParams {
  state?: string;
  code?: string;
  iss?: string;
  error?: string;
  error_description?: string;
  /** Apple, first sign-in only: JSON with the person's name. */
  user?: string;
}

/** What the callback's request says about the browser that sent it. */
export interface CallbackBrowser {
  /** The value of the binding cookie authorize set, if the request carried it. */
  binding?: string;
  /** A form_post's `Origin` header, when present (a GET navigation sends none). */
  formOrigin?: string;
  /** The language the browser prefers most (its Accept-Language), for a user this sign-in makes (docs/email.md). */
  locale?: string | null;
}

/**
 * Completes a sign-in: checks that the browser is the one that started it, consumes the state (a used,
 * expired or unknown one opens nothing), exchanges the code, verifies the ID token, finds or makes the
 * user, starts a session. `keyApp` is the app of a publishable key the browser sent, if any: it must be
 * the state's app.
 */
export async function completeCallback(
  deps: OAuthDeps,
  provider: OAuthProviderName,
  params: CallbackParams,
  browser: CallbackBrowser,
  keyApp?: Application,
  client?: ClientInfo,
): Promise<{ result: SignInResult; redirectUrl: string; app: Application }> {
  if (!params.state) throw new OAuthCallbackError('invalid_state', 'the callback carries no state');
  const stateHash = sha256Hex(params.state);
  // This read only decides where an error goes; the conditional UPDATE below is what consumes.
  const found = await states.findOAuthStateByHash(deps.db, stateHash);
  if (!found) throw new OAuthCallbackError('invalid_state', 'unknown OAuth state');
  const redirectUrl = found.redirect_url;
  const fail = (code: CallbackErrorCode, detail: string, cause?: unknown) => new OAuthCallbackError(code, detail, redirectUrl, { cause });
  if (found.provider !== provider || (keyApp && keyApp.id !== found.app_id)) throw fail('invalid_state', 'the state belongs to another provider or application');
  const app = await applications.findApplication(deps.db, found.app_id);
  const row = app && (await providers.findOAuthProvider(deps.db, app.id, provider));
  // Login CSRF: a form another site posts (any page can auto-submit one) or a callback link opened in a
  // browser that did not start the flow fails as an unknown state, before the state is spent.
  if (browser.formOrigin !== undefined && browser.formOrigin !== formOrigin(deps, provider, row)) {
    throw fail('invalid_state', "the callback form was posted from a page other than the provider's");
  }
  if (!bindingMatches(browser.binding, found.browser_binding_hash)) throw fail('invalid_state', 'the callback came from a browser that did not start this sign-in');
  const claimed = await states.consumeOAuthState(deps.db, found.app_id, stateHash, iso(deps.clock.now()));
  if (!claimed) throw fail('invalid_state', 'the OAuth state was already used or has expired');
  if (!app || !row) throw fail('provider_not_configured', `${provider} sign-in is no longer configured for this application`);
  // The callback finds its app from the state, not through a guard, so the pause is checked here.
  if (app.paused) throw fail('app_paused', "this application is paused: its tenant's balance is below zero");

  let claims: IdTokenClaims;
  try {
    const flow = await flowFor(deps, row);
    const codeVerifier = open(deps.masterKeys, claimed.code_verifier_sealed, verifierBinding(stateHash));
    claims = await flow.exchange({ params: { ...params }, redirectUri: callbackUri(deps, provider), state: params.state, nonce: claimed.nonce, codeVerifier });
  } catch (error) {
    if (error instanceof OidcError) throw fail(error.code, error.message, error.cause);
    if (error instanceof ApiError && error.status === 502) throw fail('provider_unavailable', error.detail, error.cause);
    throw error;
  }
  const context: EventContext = { actor: { type: 'user', id: null }, ip: client?.ip ?? null, userAgent: client?.userAgent ?? null };
  const user = await upsertUser(deps, app, provider, claims, nameOf(claims, params.user), fail, context, browser.locale ?? null);
  return { result: await finishSignIn(deps, app, user, ['oauth'], { method: 'oauth', provider }, client), redirectUrl, app };
}

/** The origin whose form_post the callback accepts: the issuer's (Apple's, in practice; the others answer by redirect). */
function formOrigin(deps: OAuthDeps, provider: OAuthProviderName, row: OAuthProviderRow | undefined): string | null {
  if (provider === 'google') return new URL(deps.config.googleIssuer).origin;
  if (provider === 'apple') return new URL(deps.config.appleIssuer).origin;
  if (provider === 'github') return new URL(deps.config.githubUrl).origin;
  if (provider === 'microsoft') return new URL(deps.config.microsoftAuthority).origin;
  return row?.issuer ? new URL(row.issuer).origin : null;
}

/** The cookie's value hashes to the stored hash; compared in constant time (a state made before 0016 has none: no match). */
function bindingMatches(binding: string | undefined, storedHash: string | null): boolean {
  if (!binding || !storedHash) return false;
  const given = Buffer.from(sha256Hex(binding), 'hex');
  const wanted = Buffer.from(storedHash, 'hex');
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

/** Apple sends the name once, as JSON in the `user` form field; Google has it in the ID token. */
function nameOf(claims: IdTokenClaims, appleUser: string | undefined): string | null {
  if (claims.name) return claims.name.slice(0, 200);
  if (!appleUser) return null;
  try {
    const parsed = JSON.parse(appleUser) as { name?: { firstName?: unknown; lastName?: unknown } };
    const parts = [parsed.name?.firstName, parsed.name?.lastName].filter((p): p is string => typeof p === 'string' && p.length > 0);
    return parts.length > 0 ? parts.join(' ').slice(0, 200) : null;
  } catch {
    return null;
  }
}

type Fail = (code: CallbackErrorCode, detail: string) => OAuthCallbackError;

/**
 * The user for the provider's subject: the one already linked; else an existing user of the same email;
 * else a new user. An email the ID token does not say is verified opens nothing (docs/oauth.md): a provider account holding someone else's unproven address would otherwise make or link a user
 * of that address, and keep signing in to it after the owner claims it. Concurrent first sign-ins
 * cannot make two users: the unique constraints decide and the loser starts over, finding the winner.
 */
async function upsertUser(
  deps: OAuthDeps,
  app: Application,
  provider: OAuthProviderName,
  claims: IdTokenClaims,
  name: string | null,
  fail: Fail,
  context: EventContext,
  locale: string | null,
  retried = false,
): Promise<User> {
  // A token without an email asserts nothing about one: a linked subject may still sign in (below).
  if (claims.email !== undefined && claims.email_verified !== true) {
    throw fail('email_not_verified', 'the provider does not say this email address is verified');
  }
  const now = iso(deps.clock.now());
  const linked = await identities.findOAuthIdentity(deps.db, app.id, provider, claims.sub);
  if (linked) {
    const user = await users.findUserById(deps.db, app.id, linked.user_id);
    if (user) {
      await identities.touchOAuthIdentity(deps.db, app.id, provider, claims.sub, { email: claims.email ?? null, name, now });
      return user;
    }
  }
  if (!claims.email) throw fail('email_missing', 'the provider did not share an email address');
  const identity = { app_id: app.id, provider, subject: claims.sub, email: claims.email, name, created_at: now, updated_at: now };
  try {
    const existing = await users.findUserByEmail(deps.db, app.id, claims.email);
    if (existing) return await linkExisting(deps, app, existing, identity);
    const row = users.emailUserRow({
      id: newUuid(),
      appId: app.id,
      email: claims.email,
      emailVerified: true,
      passwordHash: null,
      requiresVerification: false,
      now,
      locale,
    });
    await inTransaction(deps.db, async (trx) => {
      await users.insertUser(trx, row);
      await identities.insertOAuthIdentity(trx, { ...identity, user_id: row.id });
      await recordUserCreated(trx, app, row.id, row.email, { context, source: 'oauth' }, deps.clock.now());
    });
    return users.toUser(row);
  } catch (error) {
    if (!retried && isUniqueViolation(error)) return upsertUser(deps, app, provider, claims, name, fail, context, locale, true);
    throw error;
  }
}

/**
 * Links the subject into a user that already holds the email (the provider vouched for it: upsertUser
 * checked). Linking into an unverified account applies the pre-hijacking rule (docs/security.md,
 * docs/oauth.md): whoever made it before the owner loses its password, its sessions, any OAuth link and any
 * second factor it made, before the owner's session is made.
 */
async function linkExisting(
  deps: OAuthDeps,
  app: Application,
  existing: User,
  identity: { app_id: string; provider: OAuthProviderName; subject: string; email: string; name: string | null; created_at: string; updated_at: string },
): Promise<User> {
  await inTransaction(deps.db, async (trx) => {
    if (!existing.emailVerified && (await signUps.claimUnverifiedUser(trx, app.id, existing.id, identity.created_at))) {
      await revokeUserSessions(trx, existing.id, { app, reason: 'claimed', context: SYSTEM_CONTEXT, now: new Date(identity.created_at) });
      await forgetEarlierHolder(trx, app.id, existing.id);
    }
    await identities.insertOAuthIdentity(trx, { ...identity, user_id: existing.id });
  });
  return (await users.findUserById(deps.db, app.id, existing.id)) ?? existing;
}
