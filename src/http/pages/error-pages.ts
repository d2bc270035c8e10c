import type { FastifyReply, FastifyRequest } from 'fastify';
import { appFallbackUrl } from '../../services/accounts/link-landing.js';
import { backButton, codeLine, escapeHtml, page, sendHtml } from './page.js';

// Routes a person reaches by navigating (the SSO bridge, OAuth's authorize and callback) answer their
// errors as a page (its code in small print), not as `{detail, code}`, when the browser asks for HTML: a person who opens the bridge
// signed out should read what happened and find the way back, not a JSON line.

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route is reached by a browser navigation: its errors are a page for clients that accept text/html. */
    page?: boolean;
  }
}

const TITLES: Record<number, string> = {
  400: 'This request cannot be completed',
  401: 'You are not signed in',
  402: 'This application is paused',
  403: 'This is not allowed',
  404: 'Not found',
  429: 'Too many attempts',
  503: 'Temporarily unavailable',
};

/** Whether an error of this request should be answered with a page. */
export function wantsErrorPage(request: FastifyRequest): boolean {
  return request.routeOptions.config?.page === true && /\btext\/html\b/i.test(request.headers.accept ?? '');
}

/** The error as a page: its sentence, and a way back to the app when the request named one. */
export function sendErrorPage(request: FastifyRequest, reply: FastifyReply, status: number, code: string, detail: string): FastifyReply {
  const title = TITLES[status] ?? (status >= 500 ? 'Something went wrong' : TITLES[400]!);
  const text = status >= 500 && status !== 503 ? 'Please try again in a moment.' : `${detail[0]!.toUpperCase()}${detail.slice(1)}.`;
  const body = `<h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p>${codeLine(code)}${backButton(appFallbackUrl(request.application))}`;
  return sendHtml(reply, status, page(title, body));
}
