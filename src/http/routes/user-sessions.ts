import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { UserSessionRecord } from '../../services/sessions/records.js';
import { listUserSessions, revokeAllUserSessions } from '../../services/sessions/user-sessions.js';
import { eventContext } from '../event-context.js';
import type { Guards } from '../plugins/guards.js';
import { errors, ListOf } from '../schemas.js';
import type { Http } from '../types.js';
import { UserParams, usersRoutes } from './users.js';

// docs/users.md: a user's live sessions as the server sees them, and ending them all (Secret, or the
// console with X-App-Id). One session is revoked by POST /v1/sessions/revoke (users.ts).

export function userSessionRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = usersRoutes(guards);

  app.get(
    '/v1/users/:user_id/sessions',
    route.secret({
      operationId: 'listUserSessions',
      summary: "A user's live sessions, newest first (at most 100): where they are signed in and how",
      params: UserParams,
      response: { 200: ListOf('sessions', UserSessionRecord), ...errors(400, 401, 403, 404) },
    }),
    async (request) => ({ sessions: await listUserSessions(deps, request.application!, request.params.user_id) }),
  );

  app.post(
    '/v1/users/:user_id/sessions/revoke',
    route.secret({
      operationId: 'revokeUserSessions',
      summary: "Sign a user out everywhere: every live session revoked at once (each with its session.revoked event)",
      description: 'Their access tokens are refused by the next request on every node; their refresh tokens die. They may sign in again (a ban keeps them out).',
      params: UserParams,
      response: { 200: Type.Object({ revoked: Type.Integer({ minimum: 0, description: 'how many sessions were live' }) }), ...errors(400, 401, 403, 404) },
    }),
    async (request) => ({ revoked: await revokeAllUserSessions(deps, request.application!, request.params.user_id, eventContext(request)) }),
  );
}
