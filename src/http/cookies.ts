import type { FastifyReply } from 'fastify';
import type { Config } from '../config/index.js';
import type { SessionTokens } from '../services/sessions.js';
import { REFRESH_TOKEN_SECONDS } from '../services/sessions.js';
import { REFRESH_COOKIE, SESSION_COOKIE } from './plugins/guards.js';

const REFRESH_PATH = '/v1/tokens/session';

const secure = (config: Config) => config.publicBaseUrl.startsWith('https:');

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
