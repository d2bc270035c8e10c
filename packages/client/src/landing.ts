// What a page learns from its own address when Gatehouse sends a person back to it: an SSO token, a
// sign-in by email link or OAuth (or, for an account with a second factor, its mfa_token), a password-reset
// or email-change token. Each is removed from the address bar (and history) before it is used.

import type { MfaFactor } from './errors.js';

export type Landing =
  /**
   * An SSO token in the address. Exchanged on landing only when this tab started the hop
   * (auth.signInWithSso) and has no session; otherwise `refused` says why it was left alone:
   * `'not_requested'`: no hop was started here, so it is someone else's link (a login CSRF attempt, or
   * a stale bookmark): ignore it. `'signed_in'`: this page already has a session, maybe of another
   * person: ask, and only then call auth.exchangeSsoToken(token, { nonce }) to replace it.
   */
  | { type: 'sso'; token: string; nonce?: string; refused?: 'not_requested' | 'signed_in' }
  | { type: 'link' }
  | { type: 'oauth'; error?: string }
  /**
   * An email link, OAuth or SSO proved the first factor of an account with a second one: finish with
   * auth.verifyMfa({ mfaToken, ... }). `factors` names what may complete it (read from POST /v1/mfa/challenge
   * after a redirect); missing only when the token was already dead.
   */
  | { type: 'mfa'; mfaToken: string; factors?: MfaFactor[] }
  | { type: 'password_reset'; token: string }
  | { type: 'email_change'; token: string };

/** The query parameter the client adds to the links it asks for, to know a person came back through one. */
export const LANDING_PARAM = 'gatehouse_landing';

/** `url` with `?gatehouse_landing=kind` added (the server keeps a redirect_url's own query). */
export function withLanding(url: string, kind: 'link' | 'oauth'): string {
  const target = new URL(url);
  target.searchParams.set(LANDING_PARAM, kind);
  return target.href;
}

/** Reads and removes the landing parameters of the page's address; undefined outside a browser or without any. */
export function takeLanding(): Landing | undefined {
  const g = globalThis as { location?: Location; history?: History };
  if (!g.location || !g.history) return undefined;
  const url = new URL(g.location.href);
  const q = url.searchParams;
  let landing: Landing | undefined;
  const sso = q.get('__sso_token');
  const reset = q.get('reset_token');
  const change = q.get('email_change_token');
  const kind = q.get(LANDING_PARAM);
  const mfa = q.get('mfa_token');
  if (mfa) landing = { type: 'mfa', mfaToken: mfa };
  else if (sso) landing = { type: 'sso', token: sso };
  else if (reset) landing = { type: 'password_reset', token: reset };
  else if (change) landing = { type: 'email_change', token: change };
  else if (kind === 'oauth') landing = q.get('error') ? { type: 'oauth', error: q.get('error')! } : { type: 'oauth' };
  else if (kind === 'link') landing = { type: 'link' };
  if (!landing) return undefined;
  for (const name of ['__sso_token', 'reset_token', 'email_change_token', 'mfa_token', LANDING_PARAM]) q.delete(name);
  if (landing.type === 'oauth' && landing.error) q.delete('error');
  g.history.replaceState(g.history.state, '', url.href);
  return landing;
}
