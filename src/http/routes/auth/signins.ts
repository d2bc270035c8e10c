import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { badRequest } from '../../../errors.js';
import { signInWithEmail, signInWithPassword } from '../../../services/accounts/accounts.js';
import { normalizeEmail } from '../../../services/credentials.js';
import { answerSignIn } from '../../sign-in-answer.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { Email, MfaRequiredBody, RedirectUrl, SessionTokensBody } from './schemas.js';
import { clientInfo, rateLimitIp } from '../../client-ip.js';
import { emailIpWindowKey, emailWindowKey } from '../../rate-keys.js';

const SigninBody = Type.Object({
  email: Email,
  password: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
  redirect_url: Type.Optional(RedirectUrl),
  strategy: Type.Optional(Type.Union([Type.Literal('password'), Type.Literal('magic_link')])),
});

export function signinRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'sign-up and sign-in');

  app.post(
    '/v1/signins',
    route.publishableWithEmailUser({
      operationId: 'signIn',
      summary: 'Sign in with a password (tokens and cookie) or by magic link / code (emailed)',
      body: SigninBody,
      response: {
        200: Type.Union([
          SessionTokensBody,
          MfaRequiredBody,
          Type.Object({
            status: Type.Union([Type.Literal('magic_link_sent'), Type.Literal('verification_sent')]),
            user_id: Type.Optional(Type.Union([Type.String({ format: 'uuid' }), Type.Null()])),
          }),
        ]),
        ...errors(400, 401, 429, 503),
      },
    }),
    async (request, reply) => {
      const application = request.application!;
      const { email, password, redirect_url } = request.body;
      const email_ = normalizeEmail(email);
      await deps.limiter.consume('signin_ip', `${application.id}:${rateLimitIp(request.ip)}`);
      await deps.limiter.consume('signin_email', emailIpWindowKey(application.id, email, request.ip));
      await deps.limiter.consume('signin_email_any', emailWindowKey(application.id, email));
      // A password selects the password strategy unless the client says otherwise.
      const strategy = request.body.strategy ?? (password != null ? 'password' : 'magic_link');
      // The guard's statement read the user with the key when it could: no second round trip.
      const known = request.emailUser?.emailNormalized === email_ ? request.emailUser : undefined;
      if (strategy === 'magic_link') return signInWithEmail(deps, application, email, redirect_url, known);
      if (password == null || password === '') throw badRequest('password is required for strategy password');
      return answerSignIn(reply, deps.config, await signInWithPassword(deps, application, email, password, known, clientInfo(request)));
    },
  );
}
