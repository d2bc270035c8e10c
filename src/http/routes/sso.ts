import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { Deps } from '../../deps.js';
import { unauthorized } from '../../errors.js';
import { localeFromAcceptLanguage } from '../../services/mail/compose.js';
import { exchangeSsoToken, startSsoHop } from '../../services/sessions/sso.js';
import { answerSignIn } from '../sign-in-answer.js';
import { SignInAnswerBody } from './auth/schemas.js';
import type { Guards } from '../plugins/guards.js';
import { errors, Uuid } from '../schemas.js';
import type { Http } from '../types.js';
import { routesOf, userSession } from '../route-security.js';
import { clientInfo, rateLimitIp } from '../client-ip.js';

// docs/sso.md: single sign-on between apps of one tenant.

// A random value the destination page made and keeps (sessionStorage) to recognise its own hop.
const nonce = (description: string) => Type.String({ minLength: 22, maxLength: 128, pattern: '^[A-Za-z0-9_-]+$', description });

const BridgeQuery = Type.Object({
  return_to: Type.String({ minLength: 1, maxLength: 2048, description: 'absolute URL on the allow-list of an app of the same tenant' }),
  publishable_key: Type.Optional(Type.String({ maxLength: 128, description: 'for navigations, which cannot send X-Publishable-Key' })),
  nonce: Type.Optional(nonce('random, at least 128 bits (22 base64url characters), made and kept by the destination page: the exchange must send it')),
});

export function ssoRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'sso');

  // The bridge is reached by a top-level navigation, which cannot send headers: the app may also come
  // from the query or the Host, the session from the __session cookie (or Bearer).
  async function bridgeGuard(request: FastifyRequest): Promise<void> {
    const { publishable_key } = request.query as { publishable_key?: string };
    if (!(await guards.resolvePublishable(request, publishable_key))) {
      throw unauthorized('missing X-Publishable-Key, publishable_key or a verified-domain Host');
    }
    await guards.authenticateSession(request);
  }

  app.get(
    '/v1/sso/bridge',
    {
      preHandler: bridgeGuard,
      config: { page: true },
      schema: {
        operationId: 'ssoBridge',
        tags: ['sso'],
        summary: 'Redirect the signed-in browser to return_to with a one-time __sso_token',
        security: userSession,
        querystring: BridgeQuery,
        response: { 302: Type.Null({ description: 'Location: return_to plus __sso_token' }), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const location = await startSsoHop(deps, request.application!, request.session!.userId, request.query.return_to, request.query.nonce);
      // The token is in the URL: keep it out of the Referer of whatever the next page loads.
      reply.header('referrer-policy', 'no-referrer').header('cache-control', 'no-store');
      return reply.redirect(location, 302);
    },
  );

  app.post(
    '/v1/sso/exchange',
    route.publishable({
      operationId: 'ssoExchange',
      summary: 'Exchange an SSO token for a session in this app (tokens in the body, cookies set)',
      body: Type.Object({
        token: Type.String({ minLength: 1, maxLength: 256 }),
        nonce: Type.Optional(nonce('the nonce given to the bridge: required when the bridge had one, refused when it had none')),
      }),
      response: { 200: SignInAnswerBody, ...errors(400, 401, 403, 429) },
    }),
    async (request, reply) => {
      const application = request.application!;
      await deps.limiter.consume('sso_exchange_ip', `${application.id}:${rateLimitIp(request.ip)}`);
      return answerSignIn(reply, deps.config, await exchangeSsoToken(deps, application, request.body.token, clientInfo(request), request.body.nonce, localeFromAcceptLanguage(request.headers['accept-language'])));
    },
  );
}
