import { Type } from '@sinclair/typebox';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Deps } from '../../../deps.js';
import { ApiError, badRequest, notFound } from '../../../errors.js';
import { AppleClientSecrets } from '../../../providers/apple-secret.js';
import { OidcIssuers } from '../../../providers/oidc.js';
import { localeFromAcceptLanguage } from '../../../services/mail/compose.js';
import { usesFormPost } from '../../../services/oauth/flows.js';
import { isProvider, type OAuthProviderName } from '../../../services/oauth/providers.js';
import { completeCallback, OAuthCallbackError, startAuthorization, STATE_TTL_SECONDS, type CallbackParams, type OAuthDeps } from '../../../services/oauth/sign-in.js';
import { withMfaToken } from '../../sign-in-answer.js';
import { clearOAuthBindingCookie, oauthBindingCookie, requestCookie, setAuthCookies, setOAuthBindingCookie } from '../../cookies.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import { clientInfo } from '../../client-ip.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';

// docs/oauth.md: authorize (Publishable) and the two callbacks (GET for the query response of Google,
// GitHub, Microsoft and custom providers, POST for Apple's form_post). The callbacks carry no key: the state names the
// app, and the binding cookie authorize set names the browser.

const formPost = usesFormPost;

const ProviderParams = Type.Object({ provider: Type.String({ maxLength: 64 }) });

const Param = Type.Optional(Type.String({ maxLength: 4096 }));
// Open: the provider decides what else it sends back (Apple's form_post, a new parameter of Google's), and
// a field the service does not read must not turn a person's sign-in into an error page.
const CallbackFields = Type.Object({ state: Param, code: Param, iss: Param, error: Param, error_description: Param, user: Param }, { additionalProperties: true });

const callbackSchema = (operationId: string, summary: string, where: 'querystring' | 'body') => ({
  operationId,
  tags: ['oauth'],
  summary,
  params: ProviderParams,
  [where]: CallbackFields,
  response: { 302: Type.Null({ description: 'Location: redirect_url, with ?error=CODE on failure' }), ...errors(400, 404) },
});

function providerOf(name: string): OAuthProviderName {
  if (!isProvider(name)) throw notFound(`unknown provider "${name}" (google, apple, github, microsoft or oidc-<name>)`);
  return name;
}

/** Where a failed callback goes: back to the app with `?error=CODE` (its own query kept). */
function withError(redirectUrl: string, code: string): string {
  const url = new URL(redirectUrl);
  url.searchParams.set('error', code);
  return url.toString();
}

export function oauthFlowRoutes(app: Http, deps: Deps, guards: Guards): void {
  const oauthDeps: OAuthDeps = { ...deps, issuers: new OidcIssuers(), appleSecrets: new AppleClientSecrets() };
  const route = routesOf(guards, 'oauth');

  app.get(
    '/v1/oauth/:provider/authorize',
    {
      config: { page: true },
      ...route.publishable({
        operationId: 'oauthAuthorize',
        summary:
          "The provider's authorization URL (PKCE S256, state and nonce kept on the server for 10 minutes); sets the browser-binding cookie the callback requires (call it with credentials)",
        params: ProviderParams,
        querystring: Type.Object({ redirect_url: Type.String({ minLength: 1, maxLength: 2048, description: 'on the allow-list; the browser returns here' }) }),
        response: { 200: Type.Object({ authorization_url: Type.String() }), ...errors(400, 401, 404, 502) },
      }),
    },
    async (request, reply) => {
      const provider = providerOf(request.params.provider);
      const { authorizationUrl, browserBinding } = await startAuthorization(oauthDeps, request.application!, provider, request.query.redirect_url);
      setOAuthBindingCookie(reply, deps.config, provider, formPost(provider), browserBinding, STATE_TTL_SECONDS);
      reply.header('cache-control', 'no-store');
      return { authorization_url: authorizationUrl };
    },
  );

  async function callback(request: FastifyRequest, reply: FastifyReply, params: CallbackParams, posted: boolean) {
    const provider = providerOf((request.params as { provider: string }).provider);
    const binding = requestCookie(request, oauthBindingCookie(provider));
    const origin = request.headers.origin;
    const keyApp = typeof request.headers['x-publishable-key'] === 'string' ? await guards.resolvePublishable(request) : undefined;
    // The URL held a code and a state: keep them out of the next page's Referer, and out of caches.
    reply.header('referrer-policy', 'no-referrer').header('cache-control', 'no-store');
    try {
      // The browser's language names a new user's (docs/email.md), as a password sign-up's does.
      const browser = { binding, formOrigin: posted && typeof origin === 'string' ? origin : undefined, locale: localeFromAcceptLanguage(request.headers['accept-language']) };
      const { result, redirectUrl, app } = await completeCallback(oauthDeps, provider, params, browser, keyApp, clientInfo(request));
      // Spent with its state. Only on success: a forged callback must not clear a sign-in in progress.
      clearOAuthBindingCookie(reply, deps.config, provider, formPost(provider));
      // A user with a second factor gets no session yet: the app's page completes it (docs/mfa.md).
      if (result.mfa) return reply.redirect(withMfaToken(redirectUrl, result.mfa.mfa_token), 302);
      // The app comes from the state, not a guard: its cookie_domain is passed along.
      setAuthCookies(reply, deps.config, result.tokens, app);
      return reply.redirect(redirectUrl, 302);
    } catch (error) {
      if (!(error instanceof OAuthCallbackError)) throw error;
      // Code and messages only: a provider's error may quote claims.
      const cause = error.cause as { message?: string; code?: string } | undefined;
      request.log.info({ oauth_error: error.code, reason: error.detail, cause: cause && { message: cause.message, code: cause.code } }, 'OAuth callback failed');
      if (!error.redirectUrl) throw badRequest(error.detail, 'invalid_state');
      return reply.redirect(withError(error.redirectUrl, error.code), 302);
    }
  }

  app.get('/v1/oauth/:provider/callback', { config: { page: true }, schema: callbackSchema('oauthCallback', "The provider's redirect (query response mode)", 'querystring') }, (request, reply) =>
    callback(request, reply, request.query as CallbackParams, false),
  );

  // Apple posts the response as a cross-site form (form_post): only this scope parses form bodies, so no
  // other route accepts a form a foreign page could submit.
  app.register(async (scope: Http) => {
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 64 * 1024 }, (_request, body, done) => {
      try {
        done(null, Object.fromEntries(new URLSearchParams(body as string)));
      } catch (cause) {
        done(new ApiError(400, 'validation_failed', 'the form body could not be read', { cause }), undefined);
      }
    });
    scope.post('/v1/oauth/:provider/callback', { config: { page: true }, schema: callbackSchema('oauthFormPostCallback', "The provider's form_post response", 'body') }, (request, reply) =>
      callback(request, reply, (request.body ?? {}) as CallbackParams, true),
    );
  });
}
