// client.auth.mfa: the signed-in user's second factors (docs/mfa.md): list them, enroll an authenticator
// app (TOTP) or a passkey, rename and remove them, and make new recovery codes. Signing in with a second
// factor is the sign-in's business: auth.verifyMfa and auth.signInWithPasskey.
import type { Http } from './http.js';
import { createPasskey } from './passkeys.js';
import type { SessionStore } from './session.js';
import type { Ok } from './types.js';

/** One of the user's factors, as `GET /v1/me/factors` lists it (never its secret). */
export type Factor = Ok<'listMyFactors'>['factors'][number];
/** The user's factors and how many unused recovery codes are left. */
export type FactorList = Ok<'listMyFactors'>;
/** A TOTP enrollment: the secret, its otpauth:// URI and an SVG QR code, shown once. */
export type TotpEnrollment = Ok<'enrollTotp'>;
/** A factor just confirmed or registered, with the recovery codes it made (shown once; none for a later passkey). */
export interface FactorAdded {
  factor: Factor;
  recovery_codes: string[];
}

const factorPath = (factorId: string) => `/v1/me/factors/${encodeURIComponent(factorId)}`;

export class MfaApi {
  constructor(
    private readonly http: Http,
    private readonly store: SessionStore,
  ) {}

  /** The signed-in user's factors, verified or not, and `recovery_codes_remaining`. */
  listFactors(): Promise<FactorList> {
    return this.http.json('GET', '/v1/me/factors', { auth: true });
  }

  /**
   * Starts adding an authenticator app: show `totp.qr_code` (an SVG) or `totp.secret`, then confirmTotp with
   * the app's first code. An account that already has a verified factor needs an aal2 session (403 otherwise).
   */
  enrollTotp(input: { friendlyName?: string } = {}): Promise<TotpEnrollment> {
    return this.http.json('POST', '/v1/me/factors/totp', { auth: true, body: { friendly_name: input.friendlyName } });
  }

  /**
   * Confirms an enrollment with the app's first code: the factor and 10 recovery codes (shown once). The
   * session becomes aal2: its new access token is kept as a refresh's would be (TOKEN_REFRESHED).
   */
  async confirmTotp(input: { factorId: string; code: string }): Promise<FactorAdded> {
    const answer = await this.http.json<Ok<'confirmTotp'>>('POST', `${factorPath(input.factorId)}/verify`, { auth: true, body: { code: input.code } });
    await this.store.renewed(answer.access_token);
    return { factor: answer.factor, recovery_codes: answer.recovery_codes };
  }

  /**
   * Registers a passkey on this device (a browser: navigator.credentials.create). The first factor of an
   * account answers 10 recovery codes; the session becomes aal2 (TOKEN_REFRESHED).
   */
  async registerPasskey(input: { friendlyName?: string } = {}): Promise<FactorAdded> {
    const { challenge_id, options } = await this.http.json<Ok<'passkeyRegistrationOptions'>>('POST', '/v1/me/passkeys/options', { auth: true });
    const credential = await createPasskey(options);
    const answer = await this.http.json<Ok<'registerPasskey'>>('POST', '/v1/me/passkeys', {
      auth: true,
      body: { challenge_id, credential, friendly_name: input.friendlyName },
    });
    await this.store.renewed(answer.access_token);
    return { factor: answer.factor, recovery_codes: answer.recovery_codes };
  }

  /** Renames a factor (null clears the name); answers the factor. */
  renameFactor(input: { factorId: string; friendlyName: string | null }): Promise<Factor> {
    return this.http.json('PATCH', factorPath(input.factorId), { auth: true, body: { friendly_name: input.friendlyName } });
  }

  /**
   * Removes a factor. Needs a sign-in within the last 10 minutes (403 `sign in again to remove a factor`)
   * and, for a verified factor, an aal2 session; the last verified factor takes the recovery codes with it.
   */
  async removeFactor(factorId: string): Promise<void> {
    await this.http.json('DELETE', factorPath(factorId), { auth: true });
  }

  /** A new set of 10 recovery codes (shown once); the earlier set stops working. Needs an aal2 session. */
  async renewRecoveryCodes(): Promise<string[]> {
    return (await this.http.json<Ok<'renewRecoveryCodes'>>('POST', '/v1/me/recovery_codes', { auth: true })).recovery_codes;
  }
}
