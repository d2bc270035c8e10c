// client.auth: sign-up with the proof-of-work, every way to sign in (a passkey among them), the session and
// its events, (from AccountApi) the account routes, and `mfa`, the user's second factors.
import { solveChallenge } from '#pow';
import { AccountApi } from './account.js';
import { MfaApi } from './factors.js';
import { withLanding, type Landing } from './landing.js';
import type { Http } from './http.js';
import { getPasskey } from './passkeys.js';
import { newSsoNonce } from './sso.js';
import type { SessionStore } from './session.js';
import type { AuthListener, Challenge, Ok, Session, Tokens, User } from './types.js';

export interface SignUpResult {
  status: 'verification_sent';
  user_id: string;
}

/** The current page's address without its query, or undefined outside a browser. */
function currentPage(): string | undefined {
  const location = (globalThis as { location?: Location }).location;
  return location ? location.origin + location.pathname : undefined;
}

/** A sign-in provider's name: a built-in one, or an app's own OpenID Connect provider `oidc-<name>`. */
export type OAuthProvider = 'google' | 'apple' | 'github' | 'microsoft' | `oidc-${string}`;

/** A provider the app offers (GET /v1/oauth/providers/public). */
export interface OAuthProviderInfo {
  provider: OAuthProvider;
  display_name: string;
}

export class AuthApi extends AccountApi {
  /** What the page's address said when the client started (see handleRedirect). */
  landing: Promise<Landing | undefined> = Promise.resolve(undefined);
  /** The signed-in user's second factors: list, enroll (TOTP, passkey), rename, remove, recovery codes. */
  readonly mfa: MfaApi;

  constructor(
    http: Http,
    store: SessionStore,
    private readonly ready: Promise<void>,
    private readonly powWorkerUrl: string | URL | undefined,
    /** Where this tab keeps the nonce of the SSO hop it started (sessionStorage). */
    readonly ssoNonceKey: string,
  ) {
    super(http, store);
    this.mfa = new MfaApi(http, store);
  }

  /**
   * Creates the account: fetches a challenge, solves its proof-of-work in a worker (a Web Worker in
   * browsers, a worker thread in Node), and emails the code and/or link that verifies the address.
   */
  async signUp(input: { email: string; password?: string; redirectTo?: string | null; onSolving?: (challenge: Challenge) => void }): Promise<SignUpResult> {
    const challenge = await this.http.json<Challenge>('POST', '/v1/challenges');
    input.onSolving?.(challenge);
    const { nonce } = await solveChallenge(challenge, this.powWorkerUrl);
    const redirect = input.redirectTo === undefined ? currentPage() : input.redirectTo;
    return this.http.json('POST', '/v1/signups', {
      body: {
        email: input.email,
        password: input.password ?? null,
        redirect_url: redirect ? withLanding(redirect, 'link') : null,
        hashcash: { challenge: challenge.challenge, nonce },
      },
    });
  }

  /** Signs in with the email and password (SIGNED_IN), or throws MfaRequiredError. */
  async signInWithPassword(input: { email: string; password: string }): Promise<Session> {
    return this.signedIn(await this.http.json('POST', '/v1/signins', { body: { ...input, strategy: 'password' } }));
  }

  /**
   * Completes a sign-in that asked for a second factor (SIGNED_IN): a TOTP code, a recovery code, or
   * `passkey: true`, which asks this device (a browser) to sign with one of the account's passkeys.
   */
  async verifyMfa(input: { mfaToken: string; code?: string; recoveryCode?: string; factorId?: string; passkey?: boolean }): Promise<Session> {
    let body: Record<string, unknown>;
    if (input.passkey) {
      const { options } = await this.http.json<Ok<'mfaPasskeyOptions'>>('POST', '/v1/mfa/passkey/options', { body: { mfa_token: input.mfaToken } });
      body = { mfa_token: input.mfaToken, passkey: await getPasskey(options) };
    } else body = { mfa_token: input.mfaToken, code: input.code, recovery_code: input.recoveryCode, factor_id: input.factorId };
    return this.store.signedIn(await this.http.json<Tokens>('POST', '/v1/mfa/verify', { body }));
  }

  /**
   * Signs in with a passkey, no email typed: the device offers the app's passkeys and the person unlocks
   * one (a browser: navigator.credentials.get). SIGNED_IN, at aal2; an unknown passkey is 401.
   */
  async signInWithPasskey(): Promise<Session> {
    const { challenge_id, options } = await this.http.json<Ok<'passkeySignInOptions'>>('POST', '/v1/passkeys/signin/options');
    const credential = await getPasskey(options);
    return this.store.signedIn(await this.http.json<Tokens>('POST', '/v1/passkeys/signin', { body: { challenge_id, credential } }));
  }

  /**
   * Emails a one-time code and/or a sign-in link (per the app's `verification_method`). Finish with
   * `verifyOtp` (the code) or by opening the link, which lands on `redirectTo` signed in.
   */
  async signInWithOtp(input: { email: string; redirectTo?: string | null }): Promise<{ status: 'magic_link_sent' | 'verification_sent' }> {
    const redirect = input.redirectTo === undefined ? currentPage() : input.redirectTo;
    return this.http.json('POST', '/v1/signins', {
      body: { email: input.email, strategy: 'magic_link', redirect_url: redirect ? withLanding(redirect, 'link') : null },
    });
  }

  /** Signs in with the emailed 6-digit code (a sign-up's or a sign-in's); SIGNED_IN. */
  async verifyOtp(input: { email: string; code: string }): Promise<Session> {
    return this.signedIn(await this.http.json('POST', '/v1/verify-code', { body: input }));
  }

  /**
   * The sign-in providers the app offers, for a page's buttons: each one's `provider` (what
   * signInWithOAuth takes) and `display_name` ("Sign in with GitHub", "Sign in with Acme SSO").
   */
  async listOAuthProviders(): Promise<OAuthProviderInfo[]> {
    return (await this.http.json<{ providers: OAuthProviderInfo[] }>('GET', '/v1/oauth/providers/public')).providers;
  }

  /**
   * Starts an OAuth sign-in (Google, Apple, GitHub, Microsoft or a custom `oidc-<name>` provider): answers
   * the provider's URL and, in a browser, goes there (unless `skipBrowserRedirect`). It must run in the
   * browser that signs in, same-site with Gatehouse: the answer sets the cookie the callback checks. The
   * person lands on `redirectTo` signed in.
   */
  async signInWithOAuth(input: { provider: OAuthProvider; redirectTo?: string; skipBrowserRedirect?: boolean }): Promise<{ url: string }> {
    const redirect = input.redirectTo ?? currentPage();
    if (!redirect) throw new TypeError('signInWithOAuth needs redirectTo outside a browser');
    const answer = await this.http.json<{ authorization_url: string }>('GET', `/v1/oauth/${input.provider}/authorize`, {
      query: { redirect_url: withLanding(redirect, 'oauth') },
    });
    const location = (globalThis as { location?: Location }).location;
    if (location && !input.skipBrowserRedirect) location.assign(answer.authorization_url);
    return { url: answer.authorization_url };
  }

  /**
   * Signs this app in with the person's session in another app of the tenant (SSO), started from this
   * page: makes a nonce, keeps it in this tab's sessionStorage and (unless `skipBrowserRedirect`) goes to
   * that app's bridge, which sends the person back to `redirectTo` (this page by default) with a one-time
   * token bound to the nonce; the client exchanges it on landing. `from` is the other app as your code
   * knows it, never as an address says it.
   */
  signInWithSso(input: { from: { url: string; publishableKey: string }; redirectTo?: string; skipBrowserRedirect?: boolean }): { url: string } {
    const redirect = input.redirectTo ?? currentPage();
    if (!redirect) throw new TypeError('signInWithSso needs redirectTo outside a browser');
    const bridge = new URL(`${input.from.url.replace(/\/+$/, '')}/v1/sso/bridge`);
    bridge.searchParams.set('publishable_key', input.from.publishableKey);
    bridge.searchParams.set('return_to', redirect);
    bridge.searchParams.set('nonce', newSsoNonce(this.ssoNonceKey));
    const location = (globalThis as { location?: Location }).location;
    if (location && !input.skipBrowserRedirect) location.assign(bridge.href);
    return { url: bridge.href };
  }

  /**
   * The address of this app's SSO bridge, for a destination that is not this client: the bridge sends
   * the person to `returnTo` with a one-time token. A destination page running this client exchanges
   * only hops it started itself (signInWithSso); `nonce` is the one that page made, when it made one.
   */
  ssoUrl(returnTo: string, options: { nonce?: string } = {}): string {
    return this.http.url('/v1/sso/bridge', { publishable_key: this.http.o.publishableKey, return_to: returnTo, nonce: options.nonce });
  }

  /**
   * Exchanges an SSO token for a session of this app; SIGNED_IN. Done for you on landing when this tab
   * started the hop and had no session; call it yourself for a landing refused as `'signed_in'`, once
   * the person agreed, with the landing's nonce.
   */
  async exchangeSsoToken(token: string, options: { nonce?: string } = {}): Promise<Session> {
    const body = options.nonce === undefined ? { token } : { token, nonce: options.nonce };
    return this.signedIn(await this.http.json('POST', '/v1/sso/exchange', { body }));
  }

  /**
   * Why the page was opened, read from its address when the client started: an SSO landing (already
   * exchanged), an email link or OAuth sign-in (the session already loaded), a sign-in that asks for the
   * second factor (`mfa`: verifyMfa with its mfaToken), or a password-reset or email-change token for the
   * page to use. Undefined for an ordinary visit.
   */
  handleRedirect(): Promise<Landing | undefined> {
    return this.landing;
  }

  /** Signs out: the session is revoked on the server and forgotten here (SIGNED_OUT), even when already gone there. */
  async signOut(): Promise<void> {
    await this.ready;
    try {
      if (this.store.current) await this.http.json('POST', '/v1/sessions/logout', { auth: true });
    } catch (error) {
      if ((error as { status?: number }).status !== 401) throw error; // 401: the session was over already
    } finally {
      await this.store.signedOut();
    }
  }

  /** The signed-in user from Gatehouse (so a revoked session shows at once), or null when signed out. */
  async getUser(): Promise<User | null> {
    await this.ready;
    if (!this.store.current) return null;
    try {
      return await this.http.json<User>('GET', '/v1/me', { auth: true });
    } catch (error) {
      if ((error as { status?: number }).status === 401) {
        await this.store.signedOut();
        return null;
      }
      throw error;
    }
  }

  /** The session (refreshed first when about to expire), or null. With cookies it holds no token. */
  async getSession(): Promise<Session | null> {
    await this.ready;
    return this.store.fresh();
  }

  /**
   * A fresh access token to send to your own API (`Authorization: Bearer ...`), or null when signed out,
   * in every storage mode. With cookies it comes from Gatehouse (a refresh by cookie, whose answer holds
   * no refresh token) and is kept in memory only.
   */
  async getToken(): Promise<string | null> {
    await this.ready;
    return this.store.token();
  }

  /** Refreshes now (once across tabs); answers the new session, or null when it was over. */
  async refreshSession(): Promise<Session | null> {
    await this.ready;
    return this.store.refresh();
  }

  /** Calls `listener(event, session)`: INITIAL_SESSION first, then SIGNED_IN, TOKEN_REFRESHED, USER_UPDATED, SIGNED_OUT. */
  onAuthStateChange(listener: AuthListener): { unsubscribe: () => void } {
    return { unsubscribe: this.store.subscribe(listener, this.ready) };
  }
}
