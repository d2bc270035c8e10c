import { eventContext } from '../../event-context.js';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { unauthorized } from '../../../errors.js';
import { currentUser, logout } from '../../../services/accounts/accounts.js';
import { refreshSession } from '../../../services/sessions/sessions.js';
import { updateMe } from '../../../services/accounts/user-updates.js';
import { activeOrganizationOf } from '../../../services/organizations/active.js';
import { clearAuthCookiesAfter, REFRESH_COOKIE, requestCookie, setAuthCookies } from '../../cookies.js';
import { checkCookieOrigin, type Guards } from '../../plugins/guards.js';
import { errors, Uuid } from '../../schemas.js';
import type { Http } from '../../types.js';
import { MeBody, meBody } from './schemas.js';
import { routesOf } from '../../route-security.js';
import { Locale } from '../users.js';
import { rateLimitIp } from '../../client-ip.js';

// A refresh by cookie renews both cookies and answers no refresh token: page scripts never see one
// (docs/auth.md, refined 2026-12-01). A refresh token sent in the body comes back in the body.
const RefreshAnswer = Type.Object({
  access_token: Type.String(),
  refresh_token: Type.Optional(Type.String({ description: 'only when the refresh token came in the body' })),
  user_id: Uuid,
  session_id: Uuid,
});

export function sessionRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'sessions');

  app.get(
    '/v1/me',
    { ...route.session({ operationId: 'getMe', summary: 'The signed-in user', response: { 200: MeBody, ...errors(401, 403) } }), config: { mfaEnrollment: true } },
    async (request) => {
      const app = request.application!;
      if (request.sessionUser) return meBody(request.sessionUser, app.organizationsEnabled ? request.sessionUser.organization : null);
      const user = await currentUser(deps, app.id, request.session!.userId);
      return meBody(user, await activeOrganizationOf(deps, app, request.session!.sessionId));
    },
  );

  app.patch(
    '/v1/me',
    route.session({
      operationId: 'updateMe',
      summary: 'Change my unsafe_metadata (replaced whole) or locale; any other field is 400',
      body: Type.Object(
        {
          unsafe_metadata: Type.Optional(Type.Record(Type.String(), Type.Unknown(), { description: 'at most 8 KiB as JSON' })),
          locale: Type.Optional(Locale),
        },
        { minProperties: 1 },
      ),
      response: { 200: MeBody, ...errors(400, 401, 403) },
    }),
    async (request) => {
      const user = await updateMe(deps, request.application!, request.session!.userId, request.body, eventContext(request));
      return meBody(user, await activeOrganizationOf(deps, request.application!, request.session!.sessionId));
    },
  );

  app.post(
    '/v1/sessions/logout',
    {
      ...route.session({ operationId: 'logOut', summary: 'Revoke the current session and clear the cookies', response: { 200: Type.Object({ status: Type.Literal('logged_out') }), ...errors(401, 403) } }),
      config: { mfaEnrollment: true },
    },
    async (request, reply) => {
      await clearAuthCookiesAfter(reply, deps.config, logout(deps, request.application!, request.session!.sessionId, eventContext(request)));
      return { status: 'logged_out' as const };
    },
  );

  app.post(
    '/v1/tokens/session',
    // The rotation's own statement confirms a key this node has seen before (no lookup of its own).
    route.presumingPublishable({
      operationId: 'refreshSession',
      summary: 'Rotate a refresh token: new access and refresh tokens',
      description:
        'The refresh token comes from the body, else from the __refresh cookie: then both cookies are renewed and the answer carries no refresh_token (page scripts never see one).',
      body: Type.Object({ refresh_token: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) }),
      response: { 200: RefreshAnswer, ...errors(400, 401, 403, 429) },
    }),
    async (request, reply) => {
      const fromBody = request.body?.refresh_token;
      // A cookie needs the app's allowed origins (CSRF): only a token in the body goes on a presumed key.
      if (fromBody === undefined) await guards.confirmPresumed(request);
      let limited = false;
      const limit = async (appId: string) => {
        if (limited) return;
        limited = true;
        await deps.limiter.consume('refresh_ip', `${appId}:${rateLimitIp(request.ip)}`);
      };
      const tokens = await guards.presumed(
        request,
        async (key) => {
          await limit(key.appId);
          return refreshSession(deps, key.appId, fromBody!, key.keyHash);
        },
        async () => {
          const application = request.application!;
          await limit(application.id);
          const token = fromBody ?? requestCookie(request, REFRESH_COOKIE);
          if (!token) throw unauthorized('missing refresh token', 'invalid_token');
          if (!fromBody) checkCookieOrigin(request, application);
          return refreshSession(deps, application.id, token);
        },
      );
      const answer = { access_token: tokens.access_token, user_id: tokens.user_id, session_id: tokens.session_id };
      if (fromBody) return { ...answer, refresh_token: tokens.refresh_token };
      setAuthCookies(reply, deps.config, tokens);
      return answer;
    },
  );
}
