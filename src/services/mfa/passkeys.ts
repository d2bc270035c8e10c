import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { addSeconds, iso } from '../../clock.js';
import { newUuid } from '../../crypto/ids.js';
import { newRecoveryCodes, recoveryCodeHash } from '../../crypto/recovery-codes.js';
import { badRequest, conflict, unauthorized } from '../../errors.js';
import { isUniqueViolation } from '../../store/dialect.js';
import type { Application } from '../../store/repos/applications.js';
import * as factors from '../../store/repos/mfa-factors.js';
import * as recoveryCodes from '../../store/repos/mfa-recovery-codes.js';
import * as sessionsRepo from '../../store/repos/sessions.js';
import * as users from '../../store/repos/users.js';
import * as webauthn from '../../store/repos/webauthn-challenges.js';
import { inTransaction } from '../../store/transaction.js';
import type { MfaFactorRow } from '../../store/types.js';
import { joinAmr } from './assurance.js';
import {
  checkFactorRoom,
  onFactorVerified,
  queueFactorNotice,
  requireAal2IfEnrolled,
  requireVerifiedEmail,
  toFactorView,
  type FactorDeps,
  type FactorSession,
} from './factors.js';
import type { LiveChallenge } from './sign-in.js';
import * as challenges from '../../store/repos/mfa-challenges.js';
import { allowedOriginsOf } from '../apps/origins.js';
import { consoleRelyingParty } from '../management/console-users.js';
import { reissueAccess, startSession, type ClientInfo, type SessionTokens } from '../sessions/sessions.js';

/**
 * @simplewebauthn/server and the X.509 and ASN.1 packages under it are about 300 modules: loaded on the
 * first passkey request, not at every start (each `gatehouse serve` and CLI command would read them).
 */
let webauthnLibrary: Promise<typeof import('@simplewebauthn/server')> | undefined;
const simpleWebAuthn = () => (webauthnLibrary ??= import('@simplewebauthn/server'));

// Passkeys (WebAuthn, with @simplewebauthn/server; docs/mfa.md): registration by a signed-in user, sign-in
// with a discoverable credential (a first factor that is also aal2: a device and its user verification),
// and a passkey as the second factor of an MFA challenge. The relying party is the app: its verified
// domain, else the host of its first allowed origin; the expected origins are its allow-list. The console
// app's is PUBLIC_BASE_URL's host and origin (services/management/console-users.ts).

export const CEREMONY_SECONDS = 5 * 60;

/** Who a passkey is for: the relying-party id and the page origins a ceremony may come from. */
interface RelyingParty {
  id: string;
  origins: string[];
}

/**
 * The app's relying party: the console app's comes from PUBLIC_BASE_URL (consoleRelyingParty); any other
 * app's is its verified domain, else the host of its first allowed origin, with its allow-list as the
 * expected origins; 400 when it has neither.
 */
async function relyingParty(deps: FactorDeps, app: Application): Promise<RelyingParty> {
  const console = await consoleRelyingParty(deps, app.id);
  if (console) return console;
  if (app.domain) return { id: app.domain, origins: allowedOriginsOf(app) };
  const first = app.allowedOrigins[0];
  if (!first) throw badRequest('passkeys need the app to have a verified domain or an allowed origin (gatehouse app update --allowed-origin)');
  return { id: new URL(first).hostname, origins: allowedOriginsOf(app) };
}

/** Options as the routes answer them: a JSON object passed through to the browser. */
const asJson = (options: object) => options as Record<string, unknown>;

const invalidPasskey = () => badRequest('the passkey could not be verified', 'invalid_passkey');

async function newCeremony(deps: FactorDeps, app: Application, userId: string | null, purpose: 'register' | 'signin', challenge: string): Promise<string> {
  const id = newUuid();
  const now = deps.clock.now();
  await webauthn.insertWebauthnChallenge(deps.db, { id, appId: app.id, userId, purpose, challenge, now: iso(now), expiresAt: iso(addSeconds(now, CEREMONY_SECONDS)) });
  return id;
}

/** `POST /v1/me/passkeys/options`: creation options for navigator.credentials.create (a discoverable credential, user verification required). */
export async function passkeyRegistrationOptions(deps: FactorDeps, app: Application, session: FactorSession) {
  await requireAal2IfEnrolled(deps, app, session);
  const user = await users.findUserById(deps.db, app.id, session.userId);
  if (!user) throw unauthorized('not authenticated');
  requireVerifiedEmail(user);
  await checkFactorRoom(deps, app, user.id);
  const existing = (await factors.listFactors(deps.db, app.id, user.id)).filter((f) => f.type === 'webauthn');
  const party = await relyingParty(deps, app);
  const options = await (await simpleWebAuthn()).generateRegistrationOptions({
    rpName: app.name,
    rpID: party.id,
    userName: user.email ?? user.id,
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    excludeCredentials: existing.map((f) => ({ id: f.credential_id!, transports: f.transports ? (JSON.parse(f.transports) as string[]) : undefined })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'required' },
  });
  return { challenge_id: await newCeremony(deps, app, user.id, 'register', options.challenge), options: asJson(options) };
}

/**
 * A credential id is the app's once (a unique index): registering one again, by its user or by anyone who
 * copied the id, is 409 and the registration's transaction is undone (the challenge stays spent).
 */
async function refuseDuplicateCredential<T>(registering: Promise<T>): Promise<T> {
  try {
    return await registering;
  } catch (error) {
    if (isUniqueViolation(error)) throw conflict('this passkey is already registered');
    throw error;
  }
}

/**
 * `POST /v1/me/passkeys`: verifies the new credential against its challenge (consumed once) and keeps it
 * as a verified factor. The session becomes aal2 (a new access token); a user's first factor also brings
 * 10 recovery codes (shown once). A notice is sent.
 */
export async function registerPasskey(deps: FactorDeps, app: Application, session: FactorSession, challengeId: string, response: RegistrationResponseJSON, friendlyName: string | null) {
  await requireAal2IfEnrolled(deps, app, session);
  const user = await users.findUserById(deps.db, app.id, session.userId);
  if (!user) throw unauthorized('not authenticated');
  requireVerifiedEmail(user);
  const now = iso(deps.clock.now());
  const challenge = await webauthn.consumeWebauthnChallenge(deps.db, app.id, challengeId, 'register', user.id, now);
  if (!challenge) throw badRequest('unknown, used or expired challenge_id: ask for new options', 'invalid_passkey');
  let verified;
  try {
    const party = await relyingParty(deps, app);
    verified = await (await simpleWebAuthn()).verifyRegistrationResponse({ response, expectedChallenge: challenge, expectedOrigin: party.origins, expectedRPID: party.id, requireUserVerification: true });
  } catch (error) {
    // The library's message may quote the challenge: only the error's name is logged.
    deps.log.info({ reason: (error as Error).name }, 'passkey registration refused');
    throw invalidPasskey();
  }
  if (!verified.verified) throw invalidPasskey();
  const { credential } = verified.registrationInfo;
  const firstFactor = !(await factors.hasVerifiedFactor(deps.db, app.id, user.id));
  const codes = firstFactor ? newRecoveryCodes() : [];
  const id = newUuid();
  const amr = [...new Set([...session.amr, 'webauthn'])];
  await refuseDuplicateCredential(inTransaction(deps.db, async (trx) => {
    await factors.insertFactor(trx, {
      id,
      app_id: app.id,
      user_id: user.id,
      type: 'webauthn',
      status: 'verified',
      friendly_name: friendlyName,
      secret_sealed: null,
      last_step: null,
      credential_id: credential.id,
      public_key: Buffer.from(credential.publicKey).toString('base64url'),
      sign_count: credential.counter,
      transports: credential.transports ? JSON.stringify(credential.transports) : null,
      created_at: now,
      updated_at: now,
      last_used_at: null,
    });
    await onFactorVerified(trx, app, session, firstFactor, now, { id, type: 'webauthn' });
    if (firstFactor) await recoveryCodes.replaceRecoveryCodes(trx, app.id, user.id, codes.map(recoveryCodeHash), now);
    await sessionsRepo.setSessionAmr(trx, app.id, session.sessionId, joinAmr(amr), now);
    await queueFactorNotice(deps, trx, app, user, 'factor_added');
  }));
  deps.mailSignal.wake();
  const row = (await factors.findFactor(deps.db, app.id, user.id, id))!;
  return { factor: toFactorView(row), recovery_codes: codes, ...(await reissueAccess(deps, app.id, user, session.sessionId, amr, session.authTime, app.tokenClaims)) };
}

/** Verifies an assertion by a stored passkey against `challenge` and records its counter; false when it does not verify. */
async function checkAssertion(deps: FactorDeps, app: Application, factor: MfaFactorRow, challenge: string, response: AuthenticationResponseJSON): Promise<boolean> {
  try {
    const party = await relyingParty(deps, app);
    const result = await (await simpleWebAuthn()).verifyAuthenticationResponse({
      response,
      expectedChallenge: challenge,
      expectedOrigin: party.origins,
      expectedRPID: party.id,
      credential: {
        id: factor.credential_id!,
        publicKey: Buffer.from(factor.public_key!, 'base64url'),
        counter: Number(factor.sign_count ?? 0),
        transports: factor.transports ? (JSON.parse(factor.transports) as string[]) as never : undefined,
      },
      requireUserVerification: true,
    });
    if (!result.verified) return false;
    await factors.recordPasskeyUse(deps.db, app.id, factor.id, result.authenticationInfo.newCounter, iso(deps.clock.now()));
    return true;
  } catch (error) {
    deps.log.info({ reason: (error as Error).name }, 'passkey assertion refused');
    return false;
  }
}

/** `POST /v1/passkeys/signin/options`: request options for a discoverable credential (no user named). */
export async function passkeySignInOptions(deps: FactorDeps, app: Application) {
  const options = await (await simpleWebAuthn()).generateAuthenticationOptions({ rpID: (await relyingParty(deps, app)).id, userVerification: 'required' });
  return { challenge_id: await newCeremony(deps, app, null, 'signin', options.challenge), options: asJson(options) };
}

/**
 * `POST /v1/passkeys/signin`: a passkey as the first factor. The challenge is consumed once; the
 * credential must be a verified passkey of this app; the session's amr is ["webauthn"] (aal2).
 */
export async function signInWithPasskey(deps: FactorDeps, app: Application, challengeId: string, response: AuthenticationResponseJSON, client?: ClientInfo): Promise<SessionTokens> {
  const challenge = await webauthn.consumeWebauthnChallenge(deps.db, app.id, challengeId, 'signin', null, iso(deps.clock.now()));
  if (!challenge) throw unauthorized('unknown, used or expired challenge_id: ask for new options', 'invalid_passkey');
  const factor = await factors.findPasskeyByCredential(deps.db, app.id, response.id);
  if (!factor || !(await checkAssertion(deps, app, factor, challenge, response))) throw unauthorized('the passkey could not be verified', 'invalid_passkey');
  const user = await users.findUserById(deps.db, app.id, factor.user_id);
  if (!user) throw unauthorized('the passkey could not be verified', 'invalid_passkey');
  return startSession(deps, app, user, { amr: ['webauthn'], client, opening: { method: 'passkey' } });
}

/** `POST /v1/mfa/passkey/options`: request options naming the user's passkeys; the challenge is kept with the MFA challenge. */
export async function mfaPasskeyOptions(deps: FactorDeps, app: Application, challenge: LiveChallenge) {
  const passkeys = (await factors.listFactors(deps.db, app.id, challenge.userId, { verifiedOnly: true })).filter((f) => f.type === 'webauthn');
  if (passkeys.length === 0) throw badRequest('this user has no passkey');
  const party = await relyingParty(deps, app);
  const options = await (await simpleWebAuthn()).generateAuthenticationOptions({
    rpID: party.id,
    userVerification: 'preferred',
    allowCredentials: passkeys.map((f) => ({ id: f.credential_id!, transports: f.transports ? (JSON.parse(f.transports) as never) : undefined })),
  });
  await challenges.setWebauthnChallenge(deps.db, app.id, challenge.id, options.challenge);
  return { options: asJson(options) };
}

/** The second-factor check of a passkey assertion: the factor that signed this MFA challenge's WebAuthn challenge, or undefined. */
export function passkeySecondFactor(deps: FactorDeps, app: Application, response: AuthenticationResponseJSON) {
  return async (challenge: LiveChallenge): Promise<MfaFactorRow | undefined> => {
    if (!challenge.webauthnChallenge) return undefined;
    const factor = await factors.findPasskeyByCredential(deps.db, app.id, response.id);
    if (!factor || factor.user_id !== challenge.userId) return undefined;
    return (await checkAssertion(deps, app, factor, challenge.webauthnChallenge, response)) ? factor : undefined;
  };
}
