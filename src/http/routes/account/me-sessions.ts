import { eventContext } from '../../event-context.js';
import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { listMySessions, revokeMyOtherSessions, revokeMySession } from '../../../services/sessions/my-sessions.js';
import { clearAuthCookies } from '../../cookies.js';
import type { Guards } from '../../plugins/guards.js';
import { errors, ListOf, StatusBody, Timestamp, Uuid } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';

const MySession = Type.Object({
  session_id: Uuid,
  created_at: Timestamp,
  last_used_at: Type.String({ format: 'date-time', description: 'The last refresh, else the sign-in' }),
  user_agent: Type.Union([Type.String(), Type.Null()]),
  ip: Type.Union([Type.String(), Type.Null()]),
  current: Type.Boolean({ description: 'The session making this request' }),
}, { title: 'MySession' });

export function meSessionRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'account');

  app.get(
    '/v1/me/sessions',
    route.session({ operationId: 'listMySessions', summary: "Where the signed-in user is signed in: their live sessions, newest first", response: { 200: ListOf('sessions', MySession), ...errors(401, 403) } }),
    async (request) => {
      const { userId, sessionId } = request.session!;
      return { sessions: await listMySessions(deps, request.application!.id, userId, sessionId) };
    },
  );

  app.delete(
    '/v1/me/sessions/:session_id',
    route.session({
      operationId: 'revokeMySession',
      summary: "Revoke one of the signed-in user's sessions (another user's id is 404)",
      description: 'Effective at once on every node. Revoking the current session also clears its cookies.',
      params: Type.Object({ session_id: Uuid }),
      response: { 200: StatusBody('revoked'), ...errors(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      await revokeMySession(deps, request.application!, request.session!, request.params.session_id, eventContext(request));
      if (request.params.session_id === request.session!.sessionId) clearAuthCookies(reply, deps.config);
      return { status: 'revoked' as const };
    },
  );

  app.post(
    '/v1/me/sessions/revoke_others',
    route.session({
      operationId: 'revokeMyOtherSessions',
      summary: 'Sign out every other device: revoke all sessions but the current one',
      response: { 200: Type.Object({ revoked: Type.Integer({ minimum: 0 }) }), ...errors(401, 403) },
    }),
    async (request) => {
      return { revoked: await revokeMyOtherSessions(deps, request.application!, request.session!, eventContext(request)) };
    },
  );
}
