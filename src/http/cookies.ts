import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config/index.js';
import type { SessionTokens } from '../services/sessions.js';
import { REFRESH_TOKEN_SECONDS } from '../services/sessions.js';

export const SESSION_COOKIE = '__session';
export const REFRESH_COOKIE = '__refresh';
const REFRESH_PATH = '/v1/tokens/session';

const secure = (config: Config) => config.publicBaseUrl.startsWith('https:');

/**
 * One cookie the request carries, parsed from its Cookie header when a route asks (@fastify/cookie is
 * registered without its parsing hook: most requests carry no cookie a route reads, and every hook
 * Fastify runs costs each request, bench/README.md).
 */
export function requestCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  return header ? request.server.parseCookie(header)[name] : undefined;
}

/** Sets `__session` (the access JWT, 15 minutes) and `__refresh` (30 days, only sent to the refresh route). */
export function setAuthCookies(reply: FastifyReply, config: Config, tokens: SessionTokens): void {
  reply.setCookie(SESSION_COOKIE, tokens.access_token, { httpOnly: true, sameSite: 'lax', path: '/', secure: secure(config), maxAge: 15 * 60 });
  reply.setCookie(REFRESH_COOKIE, tokens.refresh_token, {
    httpOnly: true,
    sameSite: 'lax',
    path: REFRESH_PATH,
    secure: secure(config),
    maxAge: REFRESH_TOKEN_SECONDS,
  });
}

export function clearAuthCookies(reply: FastifyReply, config: Config): void {
  reply.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: secure(config) });
  reply.clearCookie(REFRESH_COOKIE, { httpOnly: true, sameSite: 'lax', path: REFRESH_PATH, secure: secure(config) });
}
