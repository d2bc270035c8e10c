import type { FastifyReply } from 'fastify';
import type { Config } from '../config/index.js';
import type { SignInResult } from '../services/mfa/sign-in.js';
import type { SessionTokens } from '../services/sessions/sessions.js';
import { setAuthCookies } from './cookies.js';

// How the routes of a first factor answer (docs/mfa.md): a session (cookies and tokens), or, for a user
// with a second factor, the MFA challenge and no cookie.

export const tokensOnly = (t: SessionTokens) => ({ access_token: t.access_token, refresh_token: t.refresh_token, user_id: t.user_id, session_id: t.session_id });

/** The JSON answer of a new session: its cookies set, its tokens in the body. */
export function answerSession(reply: FastifyReply, config: Config, tokens: SessionTokens) {
  setAuthCookies(reply, config, tokens);
  return tokensOnly(tokens);
}

/** The JSON answer of a sign-in: the MFA challenge, or the session (answerSession). */
export function answerSignIn(reply: FastifyReply, config: Config, result: SignInResult) {
  if (result.mfa) return result.mfa;
  return answerSession(reply, config, result.tokens);
}

/** Where a browser flow (email link, OAuth) sends a user who still owes a second factor: the target with `?mfa_token=`. */
export function withMfaToken(target: string, mfaToken: string): string {
  if (!URL.canParse(target)) return `${target}${target.includes('?') ? '&' : '?'}mfa_token=${encodeURIComponent(mfaToken)}`;
  const url = new URL(target);
  url.searchParams.set('mfa_token', mfaToken);
  return url.toString();
}
