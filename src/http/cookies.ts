import { fastifyCookie as cookie } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/index.js';
import { sessionCookieDomain } from '../services/apps/cookie-domain.js';
import type { Application } from '../store/repos/applications.js';
import type { SessionTokens } from '../services/sessions/sessions.js';
import { REFRESH_TOKEN_SECONDS } from '../services/sessions/sessions.js';

export const SESSION_COOKIE = '__session';
export const REFRESH_COOKIE = '__refresh';
const REFRESH_PATH = '/v1/tokens/session';

const secure = (config: Config) => config.publicBaseUrl.startsWith('https:');

/*
 * Cookies are read and written here with @fastify/cookie's parser and serializer, by the few routes that
 * use them, rather than through the plugin's hooks: its parsing hook and its Set-Cookie writer (onSend)
 * would run on every request, and every hook Fastify runs costs each request (bench/README.md). app.ts
 * registers the plugin where no route is, which loads the cookie module these functions use.
 */

/** One cookie the request carries, parsed from its Cookie header when a route asks. */
export function requestCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header ? cookie.parse(header)[name] : undefined;
}

/** What `__session`'s Domain depends on: the app's verified domain and its cookie domain. */
type CookieApp = Pick<Application, 'domain' | 'cookieDomain'>;

type CookieOptions = { httpOnly: true; sameSite: 'lax' | 'none'; path: string; secure: boolean; maxAge: number; expires?: Date; domain?: string };

/**
 * `__session`'s options: host-only, or Domain=<the app's cookie_domain> when the request came for its domain
 * (docs/browser.md, "Your own API"), read from the request the guards resolved the app of. `__refresh`
 * never has a Domain: only Gatehouse sees the refresh token.
 */
function sessionOptions(reply: FastifyReply, config: Config, maxAge: number, expires?: Date, app: CookieApp | undefined = reply.request.application): CookieOptions {
  const domain = sessionCookieDomain(app, reply.request.hostname);
  return { httpOnly: true, sameSite: 'lax', path: '/', secure: secure(config), maxAge, ...(expires && { expires }), ...(domain && { domain }) };
}

/** Adds Set-Cookie headers (Fastify appends to any Set-Cookie already set). */
function setCookies(reply: FastifyReply, cookies: [name: string, value: string, options: CookieOptions][]): void {
  reply.header(
    'set-cookie',
    cookies.map(([name, value, options]) => cookie.serialize(name, value, options)),
  );
}

/**
 * Sets `__session` (the access JWT, 15 minutes) and `__refresh` (30 days, only sent to the refresh route);
 * `app`: the app the session is of (the OAuth callback's, by its state; an emailed link's), when the guard's
 * (the request's key or host) may be another or none.
 */
export function setAuthCookies(reply: FastifyReply, config: Config, tokens: SessionTokens, app?: CookieApp): void {
  setCookies(reply, [
    [SESSION_COOKIE, tokens.access_token, sessionOptions(reply, config, 15 * 60, undefined, app ?? reply.request.application)],
    [REFRESH_COOKIE, tokens.refresh_token, { httpOnly: true, sameSite: 'lax', path: REFRESH_PATH, secure: secure(config), maxAge: REFRESH_TOKEN_SECONDS }],
  ]);
}

/** Renews `__session` alone: a new access token for the same session (a second factor enrolled from it). */
export function setSessionCookie(reply: FastifyReply, config: Config, accessToken: string): void {
  setCookies(reply, [[SESSION_COOKIE, accessToken, sessionOptions(reply, config, 15 * 60)]]);
}

/**
 * Expires both cookies (as @fastify/cookie's clearCookie: an empty value, Max-Age=0 and an Expires in 1970);
 * with a cookie domain, the host-only `__session` too (one set before the option was).
 */
export function clearAuthCookies(reply: FastifyReply, config: Config): void {
  const gone = { httpOnly: true, sameSite: 'lax', secure: secure(config), maxAge: 0, expires: new Date(0) } as const;
  const session = sessionOptions(reply, config, 0, new Date(0));
  setCookies(reply, [
    [SESSION_COOKIE, '', session],
    ...(session.domain ? [[SESSION_COOKIE, '', { ...gone, path: '/' }] as [string, string, CookieOptions]] : []),
    [REFRESH_COOKIE, '', { ...gone, path: REFRESH_PATH }],
  ]);
}

/**
 * The OAuth browser binding (docs/oauth.md): one cookie per provider, so a Google and an Apple
 * sign-in can be in flight at once (a second authorize for the same provider replaces the first). Path
 * /v1/oauth: only authorize and the callbacks ever see it.
 */
export const oauthBindingCookie = (provider: string) => `__oauth_${provider}`;
const OAUTH_PATH = '/v1/oauth';

/**
 * Google's callback is a top-level GET, which carries SameSite=Lax cookies. Apple's is a form POSTed
 * from Apple's page (form_post): a cross-site POST carries only SameSite=None cookies, and those must be
 * Secure (browsers keep Secure cookies on http://localhost, so local set-ups work too).
 */
function oauthBindingOptions(config: Config, formPost: boolean): Omit<CookieOptions, 'maxAge'> {
  return formPost
    ? { httpOnly: true, sameSite: 'none', path: OAUTH_PATH, secure: true }
    : { httpOnly: true, sameSite: 'lax', path: OAUTH_PATH, secure: secure(config) };
}

/** Sets the binding cookie for the sign-in authorize just started (10 minutes, as its state). */
export function setOAuthBindingCookie(reply: FastifyReply, config: Config, provider: string, formPost: boolean, value: string, maxAge: number): void {
  setCookies(reply, [[oauthBindingCookie(provider), value, { ...oauthBindingOptions(config, formPost), maxAge }]]);
}

/** Expires the binding cookie once its callback has been answered (it is single-use, as the state). */
export function clearOAuthBindingCookie(reply: FastifyReply, config: Config, provider: string, formPost: boolean): void {
  setCookies(reply, [[oauthBindingCookie(provider), '', { ...oauthBindingOptions(config, formPost), maxAge: 0, expires: new Date(0) }]]);
}

/** Clears both cookies once `ending` (a logout, the account's deletion) is done; a failed one leaves them set. */
export async function clearAuthCookiesAfter(reply: FastifyReply, config: Config, ending: Promise<unknown>): Promise<void> {
  await ending;
  clearAuthCookies(reply, config);
}
