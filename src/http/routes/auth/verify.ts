import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { verifyCode, verifyLink } from '../../../services/accounts.js';
import * as applications from '../../../store/repos/applications.js';
import { normalizeEmail } from '../../../store/repos/users.js';
import { setAuthCookies } from '../../cookies.js';
import type { Guards } from '../../plugins/guards.js';
import { errors } from '../../schemas.js';
import type { Http } from '../../types.js';
import { Email, SessionTokensBody } from './schemas.js';

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
      await deps.limiter.consume('verify_code_email', `${application.id}:${normalizeEmail(email)}:${request.ip}`);
      const tokens = await verifyCode(deps, application, email, code);
      setAuthCookies(reply, deps.config, tokens);
      return tokensOnly(tokens);
    },
  );

  app.get(
    '/v1/email/verify',
    {
      schema: {
        tags: ['sign-up and sign-in'],
        summary: 'Open an emailed verification or magic link: session cookie and 302',
        description:
          'The app comes from the token (an emailed link cannot send headers); a publishable key, when sent, must match it.',
        querystring: Type.Object({ token: Type.String({ minLength: 1, maxLength: 256 }) }),
        response: { 302: Type.Null(), ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const keyApp = typeof request.headers['x-publishable-key'] === 'string' ? await guards.resolvePublishable(request) : undefined;
      const { tokens, redirect } = await verifyLink(deps, request.query.token, (id) => applications.findApplication(deps.db, id), keyApp);
      setAuthCookies(reply, deps.config, tokens);
      reply.header('referrer-policy', 'no-referrer');
      return reply.redirect(redirect, 302);
    },
  );
}
