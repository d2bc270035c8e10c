import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { verifyCode } from '../../../services/accounts.js';
import { clientInfo } from '../../client-ip.js';
import { setAuthCookies } from '../../cookies.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import type { Http } from '../../types.js';
import { Email, SessionTokensBody } from './schemas.js';
import { emailIpWindowKey, emailWindowKey } from '../../rate-keys.js';

const tokensOnly = (t: { access_token: string; refresh_token: string; user_id: string; session_id: string }) => ({
  access_token: t.access_token,
  refresh_token: t.refresh_token,
  user_id: t.user_id,
  session_id: t.session_id,
});

export function verifyRoutes(app: Http, deps: Deps, guards: Guards): void {
  app.post(
    '/v1/verify-code',
    {
      preHandler: guards.publishable,
      schema: {
        operationId: 'verifyCode',
        tags: ['sign-up and sign-in'],
        summary: 'Exchange an emailed 6-digit code for a session',
        security: [{ publishable: [] }],
        body: Type.Object({ email: Email, code: Type.String({ pattern: '^[0-9]{6}$' }) }),
        response: { 200: SessionTokensBody, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const application = request.application!;
      const { email, code } = request.body;
      await deps.limiter.consume('verify_code_email', emailIpWindowKey(application.id, email, request.ip));
      await deps.limiter.consume('verify_code_email_any', emailWindowKey(application.id, email));
      const tokens = await verifyCode(deps, application, email, code, clientInfo(request));
      setAuthCookies(reply, deps.config, tokens);
      return tokensOnly(tokens);
    },
  );
}
