import { addSeconds, iso } from '../clock.js';
import { open, seal } from '../crypto/envelope.js';
import { newUuid, sha256Hex } from '../crypto/ids.js';
import type { Deps } from '../deps.js';
import { ApiError, badRequest } from '../errors.js';
import type { AppleClientSecrets } from '../providers/apple-secret.js';
import { authorizationUrl, exchangeCode, newAuthorizationSecrets, OidcError, type IdTokenClaims, type OidcIssuers } from '../providers/oidc.js';
import * as applications from '../store/repos/applications.js';
import type { Application } from '../store/repos/applications.js';
import * as identities from '../store/repos/oauth-identities.js';
import * as providers from '../store/repos/oauth-providers.js';
import type { OAuthProviderName } from '../store/repos/oauth-providers.js';
import * as states from '../store/repos/oauth-states.js';
import * as sessions from '../store/repos/sessions.js';
import * as users from '../store/repos/users.js';
import type { User } from '../store/repos/users.js';
import { isUniqueViolation } from '../store/dialect.js';
import { inTransaction } from '../store/transaction.js';
import { clientSettings, DEFAULT_SCOPES } from './oauth-providers.js';
import { checkRedirect } from './origins.js';
import { startSession, type SessionTokens } from './sessions.js';

// OAuth sign-in with Google and Apple (interface.md 4.2, contract.md section 13). Authorize keeps the
// PKCE verifier, nonce and redirect_url on the server under the hash of the state, for 10 minutes and
// one use, so no cookie is needed (Apple's cross-site form_post carries none under SameSite rules).
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
 * answers the issuer's authorization URL.
 */
export async function startAuthorization(deps: OAuthDeps, app: Application, provider: OAuthProviderName, redirectUrl: string): Promise<string> {
  const target = checkRedirect(app, redirectUrl).toString();
  const row = await providers.findOAuthProvider(deps.db, app.id, provider);
  if (!row) throw badRequest(`${provider} sign-in is not configured for this application`, 'provider_not_configured');
  const config = await deps.issuers.configuration(await clientSettings(deps, deps.appleSecrets, row));
  const secrets = await newAuthorizationSecrets();
  const stateHash = sha256Hex(secrets.state);
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
  });
  const scopes = JSON.parse(row.scopes) as string[];
  return authorizationUrl(config, {
    redirectUri: callbackUri(deps, provider),
    scope: (scopes.length > 0 ? scopes : DEFAULT_SCOPES[provider]).join(' '),
    state: secrets.state,
    nonce: secrets.nonce,
    codeChallenge: secrets.codeChallenge,
    responseMode: provider === 'apple' ? 'form_post' : undefined,
  });
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

/**
 * Completes a sign-in: consumes the state (a used, expired or unknown one opens nothing), exchanges the
 * code, verifies the ID token, finds or makes the user, starts a session. `keyApp` is the app of a
 * publishable key the browser sent, if any: it must be the state's app.
 */
export async function completeCallback(
  deps: OAuthDeps,
  provider: OAuthProviderName,
  params: CallbackParams,
  keyApp?: Application,
): Promise<{ tokens: SessionTokens; redirectUrl: string }> {
  if (!params.state) throw new OAuthCallbackError('invalid_state', 'the callback carries no state');
  const stateHash = sha256Hex(params.state);
  // This read only decides where an error goes; the conditional UPDATE below is what consumes.
  const found = await states.findOAuthStateByHash(deps.db, stateHash);
  if (!found) throw new OAuthCallbackError('invalid_state', 'unknown OAuth state');
  const redirectUrl = found.redirect_url;
  const fail = (code: CallbackErrorCode, detail: string, cause?: unknown) => new OAuthCallbackError(code, detail, redirectUrl, { cause });
  if (found.provider !== provider || (keyApp && keyApp.id !== found.app_id)) throw fail('invalid_state', 'the state belongs to another provider or application');
  const claimed = await states.consumeOAuthState(deps.db, found.app_id, stateHash, iso(deps.clock.now()));
  if (!claimed) throw fail('invalid_state', 'the OAuth state was already used or has expired');

  const app = await applications.findApplication(deps.db, claimed.app_id);
  const row = app && (await providers.findOAuthProvider(deps.db, app.id, provider));
  if (!app || !row) throw fail('provider_not_configured', `${provider} sign-in is no longer configured for this application`);
  // The callback finds its app from the state, not through a guard, so the pause is checked here.
  if (app.paused) throw fail('app_paused', "this application is paused: its tenant's balance is below zero");

  let claims: IdTokenClaims;
  try {
    const config = await deps.issuers.configuration(await clientSettings(deps, deps.appleSecrets, row));
    const url = new URL(callbackUri(deps, provider));
    for (const key of ['code', 'state', 'iss', 'error', 'error_description'] as const) {
      if (params[key] !== undefined) url.searchParams.set(key, params[key]);
    }
    const codeVerifier = open(deps.masterKeys, claimed.code_verifier_sealed, verifierBinding(stateHash));
    claims = await exchangeCode(config, url, { state: params.state, nonce: claimed.nonce, codeVerifier });
  } catch (error) {
    if (error instanceof OidcError) throw fail(error.code, error.message, error.cause);
    if (error instanceof ApiError && error.status === 502) throw fail('provider_unavailable', error.detail, error.cause);
    throw error;
  }
  const user = await upsertUser(deps, app, provider, claims, nameOf(claims, params.user), fail);
  return { tokens: await startSession(deps, app.id, user), redirectUrl };
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
 * The user for the provider's subject: the one already linked; else an existing user of the same email,
 * linked only when the provider says the email is verified; else a new user. Concurrent first sign-ins
 * cannot make two users: the unique constraints decide and the loser starts over, finding the winner.
 */
async function upsertUser(deps: OAuthDeps, app: Application, provider: OAuthProviderName, claims: IdTokenClaims, name: string | null, fail: Fail, retried = false): Promise<User> {
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
    if (existing) return await linkExisting(deps, app, existing, claims, identity, fail);
    const row = users.emailUserRow({
      id: newUuid(),
      appId: app.id,
      email: claims.email,
      emailVerified: claims.email_verified === true,
      passwordHash: null,
      requiresVerification: false,
      now,
    });
    await inTransaction(deps.db, async (trx) => {
      await users.insertUser(trx, row);
      await identities.insertOAuthIdentity(trx, { ...identity, user_id: row.id });
    });
    return users.toUser(row);
  } catch (error) {
    if (!retried && isUniqueViolation(error)) return upsertUser(deps, app, provider, claims, name, fail, true);
    throw error;
  }
}

/**
 * Links the subject into a user that already holds the email. Only a verified email may: an unproven
 * address must not open someone else's account. Linking into an unverified account applies the
 * pre-hijacking rule (contract.md section 6): whoever made it before the owner loses its password and
 * its sessions before the owner's session is made.
 */
async function linkExisting(
  deps: OAuthDeps,
  app: Application,
  existing: User,
  claims: IdTokenClaims,
  identity: { app_id: string; provider: OAuthProviderName; subject: string; email: string; name: string | null; created_at: string; updated_at: string },
  fail: Fail,
): Promise<User> {
  if (claims.email_verified !== true) {
    throw fail('email_not_verified', 'the provider does not vouch for this email, and an account with it already exists');
  }
  await inTransaction(deps.db, async (trx) => {
    await identities.insertOAuthIdentity(trx, { ...identity, user_id: existing.id });
    if (!existing.emailVerified && (await users.claimUnverifiedUser(trx, app.id, existing.id, identity.created_at))) {
      await sessions.revokeUserSessions(trx, app.id, existing.id, identity.created_at);
    }
  });
  return (await users.findUserById(deps.db, app.id, existing.id)) ?? existing;
}
