import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { badRequest } from '../../../errors.js';
import { confirmPasswordReset, requestPasswordReset, resetProofEmail } from '../../../services/accounts/password-reset.js';
import { clientInfo } from '../../client-ip.js';
import { answerSignIn } from '../../sign-in-answer.js';
import type { Guards } from '../../plugins/guards.js';
import { emailIpWindowKey, emailWindowKey } from '../../rate-keys.js';
import { errors, StatusBody } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { Email, Password, RedirectUrl, SignInAnswerBody } from '../auth/schemas.js';

const Code = Type.String({ pattern: '^[0-9]{6}$' });
const ResetToken = Type.String({ minLength: 1, maxLength: 256 });

const ConfirmBody = Type.Union([
  Type.Object({ email: Email, code: Code, new_password: Password }),
  Type.Object({ reset_token: ResetToken, new_password: Password }),
]);

export function passwordResetRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'account');

  app.post(
    '/v1/password_resets',
    route.publishable({
      operationId: 'requestPasswordReset',
      summary: 'Email a password reset code and/or link',
      description:
        'Answers 200 {"status":"reset_sent"} for every email, known or not, with or without a password (no account oracle); ' +
        'only a user with a password is emailed. The link goes to redirect_url (allow-listed), else the app\'s own page, with ?reset_token=.',
      body: Type.Object({ email: Email, redirect_url: Type.Optional(RedirectUrl) }),
      response: { 200: StatusBody('reset_sent'), ...errors(400, 401, 429) },
    }),
    async (request) => {
      const application = request.application!;
      const { email, redirect_url } = request.body;
      await deps.limiter.consume('password_reset_email', emailIpWindowKey(application.id, email, request.ip));
      await deps.limiter.consume('password_reset_email_any', emailWindowKey(application.id, email));
      return requestPasswordReset(deps, application, email, redirect_url);
    },
  );

  app.post(
    '/v1/password_resets/confirm',
    route.publishable({
      operationId: 'confirmPasswordReset',
      summary: 'Set a new password with an emailed reset code or token: a new session',
      description:
        'Body {email, code, new_password} or {reset_token, new_password}. Answers as verify-code does (tokens and cookies); ' +
        'every other session of the user is revoked and the email counts as verified. A wrong, used or expired code or token is 400; ' +
        'each code dies after 5 wrong tries.',
      body: ConfirmBody,
      response: { 200: SignInAnswerBody, ...errors(400, 401, 429) },
    }),
    async (request, reply) => {
      const application = request.application!;
      const body = request.body;
      const proof = 'reset_token' in body ? { token: body.reset_token } : { email: body.email, code: body.code };
      // Confirms count in the verify_code_email windows of the email they are for (a token's, looked up).
      const email = await resetProofEmail(deps, application, proof);
      if (email === undefined) throw badRequest('invalid or expired token', 'invalid_token');
      await deps.limiter.consume('verify_code_email', emailIpWindowKey(application.id, email, request.ip));
      await deps.limiter.consume('verify_code_email_any', emailWindowKey(application.id, email));
      return answerSignIn(reply, deps.config, await confirmPasswordReset(deps, application, proof, body.new_password, clientInfo(request)));
    },
  );
}
