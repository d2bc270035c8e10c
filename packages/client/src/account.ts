// The signed-in user's own account (docs/account.md, docs/privacy.md): password reset, password and
// email changes, where they are signed in, and deleting the account.
import { MfaRequiredError, type MfaFactor } from './errors.js';
import type { Http } from './http.js';
import type { SessionStore } from './session.js';
import type { DeviceSession, Ok, Session, Tokens, User } from './types.js';

export class AccountApi {
  constructor(
    protected readonly http: Http,
    protected readonly store: SessionStore,
  ) {}

  /**
   * Emails a reset code and/or link (per the app's setting) when the address has a password. Answers the
   * same for every address, known or not. The link opens `redirectTo` with `reset_token` in its query.
   */
  async resetPasswordForEmail(email: string, options: { redirectTo?: string } = {}): Promise<void> {
    await this.http.json('POST', '/v1/password_resets', { body: { email, redirect_url: options.redirectTo ?? null } });
  }

  /**
   * A sign-in's answer: the session (SIGNED_IN), or, for an account with a second factor, MfaRequiredError
   * carrying the mfa_token that verifyMfa completes (nothing is stored until then).
   */
  protected signedIn(answer: Tokens | { mfa_required: true; mfa_token: string; factors: MfaFactor[]; expires_at: string }): Promise<Session> {
    if ('mfa_required' in answer && answer.mfa_required) throw new MfaRequiredError(answer);
    return this.store.signedIn(answer as Tokens);
  }

  /**
   * Sets the new password with the emailed code (and the address) or the link's token; signs in (SIGNED_IN),
   * or throws MfaRequiredError for an account with a second factor (the password is changed either way).
   */
  async confirmPasswordReset(input: { email: string; code: string; password: string } | { token: string; password: string }): Promise<Session> {
    const body = 'token' in input ? { reset_token: input.token, new_password: input.password } : { email: input.email, code: input.code, new_password: input.password };
    return this.signedIn(await this.http.json('POST', '/v1/password_resets/confirm', { body }));
  }

  /** Changes the password; `currentPassword` is required when the account has one. Other sessions are signed out. */
  async updatePassword(input: { password: string; currentPassword?: string }): Promise<void> {
    await this.http.json('POST', '/v1/me/password', { auth: true, body: { new_password: input.password, current_password: input.currentPassword } });
    this.store.updated();
  }

  /** Emails a code and/or link to the new address; nothing changes until it is confirmed. */
  async updateEmail(email: string, options: { redirectTo?: string } = {}): Promise<void> {
    await this.http.json('POST', '/v1/me/email', { auth: true, body: { new_email: email, redirect_url: options.redirectTo ?? null } });
  }

  /** Confirms the new address with its code or the link's `email_change_token` (USER_UPDATED). */
  async confirmEmailChange(input: { code: string } | { token: string }): Promise<User> {
    const user = await this.http.json<User>('POST', '/v1/me/email/confirm', { auth: true, body: input });
    this.store.updated();
    return user;
  }

  /** Where the user is signed in: each live session, newest first, `current` marking this one. */
  async listSessions(): Promise<DeviceSession[]> {
    return (await this.http.json<Ok<'listMySessions'>>('GET', '/v1/me/sessions', { auth: true })).sessions;
  }

  /** Signs one session out, at once on every node; this one's own id signs this client out. */
  async revokeSession(sessionId: string): Promise<void> {
    await this.http.json('DELETE', `/v1/me/sessions/${encodeURIComponent(sessionId)}`, { auth: true });
    if (sessionId === this.store.current?.session_id) await this.store.signedOut();
  }

  /** Signs out every other session of the user; answers how many. */
  async revokeOtherSessions(): Promise<number> {
    return (await this.http.json<Ok<'revokeMyOtherSessions'>>('POST', '/v1/me/sessions/revoke_others', { auth: true })).revoked;
  }

  /**
   * Deletes the account and everything it owns (rows, objects), then SIGNED_OUT. The session must be
   * recent (signed in within 10 minutes): else 403, and the person signs in again first.
   */
  async deleteAccount(): Promise<void> {
    await this.http.json('DELETE', '/v1/me', { auth: true });
    await this.store.signedOut();
  }
}
