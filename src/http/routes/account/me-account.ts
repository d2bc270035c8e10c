import { eventContext } from '../../event-context.js';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { changePassword } from '../../../services/accounts/password-change.js';
import { activeOrganizationOf } from '../../../services/organizations/active.js';
import { confirmEmailChange, requestEmailChange } from '../../../services/accounts/email-change.js';
import { rateLimitIp } from '../../client-ip.js';
import type { Guards } from '../../plugins/guards.js';
import { emailIpWindowKey, emailWindowKey } from '../../rate-keys.js';
import { errors, StatusBody } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { Email, MeBody, meBody, Password, RedirectUrl } from '../auth/schemas.js';

const EmailConfirmBody = Type.Union([
  Type.Object({ code: Type.String({ pattern: '^[0-9]{6}$' }) }),
  Type.Object({ token: Type.String({ minLength: 1, maxLength: 256 }) }),
]);

export function meAccountRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'account');

  /** The signed-in user's address for its windows: fresh from the guard's joined read when it made one. */
  const sessionEmail = (request: { sessionUser?: { email: string | null }; session?: { email: string | null; userId: string } }) =>
    request.sessionUser?.email ?? request.session!.email ?? request.session!.userId;

  app.post(
    '/v1/me/password',
    route.session({
      operationId: 'changePassword',
      summary: 'Change (or set) the signed-in user\'s password; every other session is revoked',
      description:
        'current_password is required when the account has a password (a wrong one is 403 and counts in the sign-in windows). ' +
        'An account without one may set it without current_password within 10 minutes of signing in (the token\'s auth_time); later, 403. ' +
        'A user with a second factor needs an aal2 session (403 aal2_required).',
      body: Type.Object({
        current_password: Type.Optional(Type.Union([Type.String({ maxLength: 256 }), Type.Null()])),
        new_password: Password,
      }),
      response: { 200: StatusBody('password_changed'), ...errors(400, 401, 403, 409, 429) },
    }),
    async (request) => {
      const application = request.application!;
      const { current_password, new_password } = request.body;
      if (current_password != null) {
        // A current password is a guess like a sign-in's: it counts in the same windows.
        const email = sessionEmail(request);
        await deps.limiter.consume('signin_ip', `${application.id}:${rateLimitIp(request.ip)}`);
        await deps.limiter.consume('signin_email', emailIpWindowKey(application.id, email, request.ip));
        await deps.limiter.consume('signin_email_any', emailWindowKey(application.id, email));
      }
      return changePassword(deps, application, request.session!, { currentPassword: current_password, newPassword: new_password }, eventContext(request));
    },
  );

  app.post(
    '/v1/me/email',
    route.session({
      operationId: 'requestEmailChange',
      summary: 'Start a change of email: a code and/or link to the new address',
      description:
        'Nothing changes until the new address is proven (POST /v1/me/email/confirm). 409 when another user of the app has it. ' +
        'The link goes to redirect_url (allow-listed), else the app\'s own page, with ?email_change_token=.',
      body: Type.Object({ new_email: Email, redirect_url: Type.Optional(RedirectUrl) }),
      response: { 200: StatusBody('verification_sent'), ...errors(400, 401, 403, 409, 429) },
    }),
    async (request) => {
      const application = request.application!;
      await deps.limiter.consume('email_change_user', `${application.id}:${request.session!.userId}`);
      return requestEmailChange(deps, application, request.session!, request.body.new_email, request.body.redirect_url);
    },
  );

  app.post(
    '/v1/me/email/confirm',
    route.session({
      operationId: 'confirmEmailChange',
      summary: 'Prove the new address with its code or token: the email changes',
      description:
        'Body {code} or {token}, of the signed-in user\'s own change. Answers the user as GET /v1/me does. A wrong, used or expired ' +
        'code or token is 400 (5 wrong tries kill a code); 409 when another user took the address meanwhile. The old address gets a notice.',
      body: EmailConfirmBody,
      response: { 200: MeBody, ...errors(400, 401, 403, 409, 429) },
    }),
    async (request) => {
      const application = request.application!;
      const body = request.body;
      if ('code' in body) {
        const email = sessionEmail(request);
        await deps.limiter.consume('verify_code_email', emailIpWindowKey(application.id, email, request.ip));
        await deps.limiter.consume('verify_code_email_any', emailWindowKey(application.id, email));
      }
      const proof = 'code' in body ? { code: body.code } : { token: body.token };
      const user = await confirmEmailChange(deps, application, request.session!, proof, eventContext(request));
      return meBody(user, await activeOrganizationOf(deps, application, request.session!.sessionId));
    },
  );
}
