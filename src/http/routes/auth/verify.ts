import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { verifyCode } from '../../../services/accounts/accounts.js';
import { clientInfo } from '../../client-ip.js';
import { answerSignIn } from '../../sign-in-answer.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { Email, SignInAnswerBody } from './schemas.js';
import { emailIpWindowKey, emailWindowKey } from '../../rate-keys.js';

export function verifyRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'sign-up and sign-in');

  app.post(
    '/v1/verify-code',
    route.publishable({
      operationId: 'verifyCode',
      summary: 'Exchange an emailed 6-digit code for a session',
      body: Type.Object({ email: Email, code: Type.String({ pattern: '^[0-9]{6}$' }) }),
      response: { 200: SignInAnswerBody, ...errors(400, 401, 429) },
    }),
    async (request, reply) => {
      const application = request.application!;
      const { email, code } = request.body;
      await deps.limiter.consume('verify_code_email', emailIpWindowKey(application.id, email, request.ip));
      await deps.limiter.consume('verify_code_email_any', emailWindowKey(application.id, email));
      return answerSignIn(reply, deps.config, await verifyCode(deps, application, email, code, clientInfo(request)));
    },
  );
}
