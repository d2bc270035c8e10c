import { eventContext } from '../../event-context.js';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { ApiError } from '../../../errors.js';
import { contestSignUp, signUp } from '../../../services/accounts/accounts.js';
import { localeFromAcceptLanguage } from '../../../services/mail/compose.js';
import { checkSignupProof } from '../../../services/accounts/hashcash.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { Email, Password, RedirectUrl } from './schemas.js';
import { rateLimitIp } from '../../client-ip.js';
import { emailWindowKey } from '../../rate-keys.js';

const SignupBody = Type.Object({
  email: Email,
  password: Type.Optional(Type.Union([Password, Type.Null()])),
  redirect_url: Type.Optional(RedirectUrl),
  hashcash: Type.Optional(
    Type.Object({ challenge: Type.String({ minLength: 1, maxLength: 512 }), nonce: Type.String({ minLength: 1, maxLength: 64 }) }),
  ),
});

export function signupRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'sign-up and sign-in');

  app.post(
    '/v1/signups',
    route.publishable({
      operationId: 'signUp',
      summary: 'Sign up by email, with or without a password (proof-of-work when required)',
      body: SignupBody,
      response: { 200: Type.Object({ status: Type.Literal('verification_sent'), user_id: Type.String({ format: 'uuid' }) }), ...errors(400, 401, 409, 410, 422, 429, 503) },
    }),
    async (request) => {
      const application = request.application!;
      const { email, password, redirect_url, hashcash } = request.body;
      // docs/hashcash.md: schema → rate limits → proof present → proof valid → the rest.
      await deps.limiter.consume('signup_ip', `${application.id}:${rateLimitIp(request.ip)}`);
      await deps.limiter.consume('signup_email', emailWindowKey(application.id, email)).catch(async (error: unknown) => {
        // Refused by the per-email window: a pending sign-up holding the email is contested (contract 4).
        if (error instanceof ApiError && error.status === 429) await contestSignUp(deps, application, email);
        throw error;
      });
      await checkSignupProof(deps, application, hashcash);
      // The user's language, for their emails (docs/email.md): the one their client prefers most.
      const locale = localeFromAcceptLanguage(request.headers['accept-language']);
      return signUp(deps, application, { email, password, redirectUrl: redirect_url, locale }, eventContext(request));
    },
  );
}
