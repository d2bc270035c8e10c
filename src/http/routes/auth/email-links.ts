import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.js';
import { ApiError, badRequest, forbidden } from '../../../errors.js';
import { verifyLink } from '../../../services/accounts/accounts.js';
import { appFallbackUrl, lookUpLink, type LinkState } from '../../../services/accounts/link-landing.js';
import { allowedOriginsOf } from '../../../services/apps/origins.js';
import { findApp } from '../../../services/apps/apps.js';
import type { Application } from '../../../services/credentials.js';
import { clientInfo } from '../../client-ip.js';
import { setAuthCookies } from '../../cookies.js';
import { withMfaToken } from '../../sign-in-answer.js';
import { sendLinkErrorPage, sendLinkLandingPage } from '../../pages/link-pages.js';
import { refusePaused, type Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import { unknownFieldDetail } from '../../unknown-fields.js';
import type { Http } from '../../types.js';

const Token = Type.String({ minLength: 1, maxLength: 256 });
const TokenInput = Type.Object({ token: Token });
const HtmlPage = Type.String({ description: 'text/html page' });

const DETAILS: Record<Exclude<LinkState, 'live'>, string> = {
  used: 'invalid or expired token: this link was already used',
  expired: 'invalid or expired token: this link has expired',
  unknown: 'invalid or expired token',
};

/** A person following a link (a browser navigation) accepts HTML; an API client does not. */
const wantsHtml = (request: FastifyRequest) => /\btext\/html\b/i.test(request.headers.accept ?? '');

export function emailLinkRoutes(app: Http, deps: Deps, guards: Guards): void {
  /** The app a sent publishable key names (it must match the link's app), or undefined. */
  const keyAppOf = (request: FastifyRequest) =>
    typeof request.headers['x-publishable-key'] === 'string' ? guards.resolvePublishable(request) : Promise.resolve(undefined);

  // A used, expired or unknown link stays 400 (interface 4.1); a person gets a page saying which, every
  // other client {detail, code}. The page carries the same code, `invalid_token`, in small print.
  async function refuse(request: FastifyRequest, reply: FastifyReply, state: Exclude<LinkState, 'live'>, backUrl: string | undefined) {
    request.log.info({ code: 'invalid_token', state }, DETAILS[state]);
    if (wantsHtml(request)) return sendLinkErrorPage(reply, state, backUrl);
    throw badRequest(DETAILS[state], 'invalid_token');
  }

  async function open(request: FastifyRequest, reply: FastifyReply, token: string | undefined, keyApp: Application | undefined, method: 'GET' | 'POST') {
    const hostApp = keyApp ?? (await guards.resolvePublishable(request).catch(() => undefined));
    if (token === undefined) return refuse(request, reply, 'unknown', appFallbackUrl(hostApp));
    const link = await lookUpLink(deps, token, hostApp);
    if (link.state !== 'live' || !link.app || (keyApp && keyApp.id !== link.app.id)) {
      return refuse(request, reply, link.state === 'live' ? 'unknown' : link.state, link.backUrl);
    }
    // A paused tenant's apps answer 402; checked before the link is consumed, so it still works after a top-up.
    refusePaused(link.app);
    if (method === 'GET' && link.app.linkLanding) {
      return sendLinkLandingPage(reply, token, link.app.name, link.purpose === 'magic_link' ? 'signin' : 'verify');
    }
    try {
      const { result, redirect } = await verifyLink(deps, token, (id) => findApp(deps, id), keyApp, clientInfo(request));
      reply.header('referrer-policy', 'no-referrer');
      // A user with a second factor gets no session yet: the app's page completes it (docs/mfa.md).
      if (result.mfa) return reply.redirect(withMfaToken(redirect, result.mfa.mfa_token), method === 'GET' ? 302 : 303);
      // The link's app, not the host's: a link opened on another app's domain sets no cookie for that one's site.
      setAuthCookies(reply, deps.config, result.tokens, link.app);
      // 303 after the POST, so the browser GETs the app's page.
      return reply.redirect(redirect, method === 'GET' ? 302 : 303);
    } catch (error) {
      // Lost a race with another click: say what the link is now.
      if (!(error instanceof ApiError) || error.code !== 'invalid_token') throw error;
      const now = await lookUpLink(deps, token, hostApp);
      return refuse(request, reply, now.state === 'live' ? 'used' : now.state, now.backUrl);
    }
  }

  app.get(
    '/v1/email/verify',
    {
      config: { page: true },
      attachValidation: true,
      schema: {
        operationId: 'openEmailLink',
        tags: ['sign-up and sign-in'],
        summary: 'Open an emailed verification or magic link: session cookie and 302 (or a one-button page)',
        description:
          'The app comes from the token (an emailed link cannot send headers); a publishable key, when sent, must match it. ' +
          'Apps with link landing on answer a 200 HTML page whose button POSTs the token, so link scanners consume nothing. ' +
          'An invalid, used or expired link is 400: an HTML page saying which for clients that accept text/html, {detail, code} for others.',
        querystring: TokenInput,
        response: { 200: HtmlPage, 302: Type.Null(), ...errors(400, 401, 402) },
      },
    },
    async (request, reply) => {
      const keyApp = await keyAppOf(request);
      return open(request, reply, request.validationError ? undefined : request.query.token, keyApp, 'GET');
    },
  );

  // The landing page's button. No session is involved (the token is the credential), but a cross-site
  // page must not sign a victim into the attacker's account with the attacker's own token (login CSRF):
  // an Origin, when sent, must be this host's own or on the link's app's allow-list.
  app.register(async (scope) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 4096 }, (_request, body, done) => {
      done(null, Object.fromEntries(new URLSearchParams(body as string)));
    });
    scope.post(
      '/v1/email/verify',
      {
        attachValidation: true,
        schema: {
          operationId: 'confirmEmailLink',
          tags: ['sign-up and sign-in'],
          summary: 'Consume an emailed link token (the link-landing page button): session cookie and 303',
          description: 'Form (application/x-www-form-urlencoded) or JSON body `{token}`. An Origin other than this host or the app allow-list → 403.',
          body: TokenInput,
          response: { 303: Type.Null({ description: "Location: the link's redirect_url (with ?mfa_token= when a second factor is due), the cookies set" }), ...errors(400, 401, 402, 403) },
        },
      },
      async (request, reply) => {
        // A bad token is the link's own error page; a field the route does not define is the client's mistake.
        const unknown = unknownFieldDetail(request.validationError?.validation);
        if (unknown) throw badRequest(unknown);
        const keyApp = await keyAppOf(request);
        const token = request.validationError ? undefined : (request.body as { token: string }).token;
        const origin = request.headers.origin;
        if (typeof origin === 'string' && token !== undefined) {
          const link = await lookUpLink(deps, token);
          // Sec-Fetch-Site is set by the browser alone (scripts cannot forge it): it vouches for a same-origin
          // form whose Origin a privacy setting turned into "null".
          const ownHost = URL.canParse(origin) ? new URL(origin).host === request.host : request.headers['sec-fetch-site'] === 'same-origin';
          if (!ownHost && !(link.app && allowedOriginsOf(link.app).includes(origin))) {
            throw forbidden(`origin ${origin} may not open this link`);
          }
        }
        return open(request, reply, token, keyApp, 'POST');
      },
    );
  });
}
