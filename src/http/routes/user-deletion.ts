import { eventContext } from '../event-context.js';
import { Readable } from 'node:stream';
import { Type, type Static } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { UserObjectRecord } from '../../services/accounts/records.js';
import { deleteOwnAccount, deleteUser } from '../../services/accounts/user-deletion.js';
import { exportUser } from '../../services/accounts/user-export.js';
import { clearAuthCookiesAfter } from '../cookies.js';
import type { Guards } from '../plugins/guards.js';
import { deleted, errors, StatusBody, Timestamp, Uuid } from '../schemas.js';
import type { Http } from '../types.js';
import { routesOf } from '../route-security.js';
import { Factor } from './mfa/schemas.js';
import { UserBody, UserParams, usersRoutes } from './users.js';

// docs/privacy.md: deleting a user (Secret, or the user themselves) and exporting one (Secret).

const ExportBody = Type.Object(
  {
    user: UserBody,
    identities: Type.Array(Type.Object({ provider: Type.String(), subject: Type.String(), email: Type.Union([Type.String(), Type.Null()]) })),
    sessions: Type.Array(
      Type.Object({
        session_id: Uuid,
        created_at: Timestamp,
        last_used_at: Timestamp,
        revoked_at: Type.Union([Timestamp, Type.Null()]),
      }),
    ),
    tables: Type.Array(
      Type.Object({
        table_id: Uuid,
        name: Type.String(),
        rows: Type.Array(
          Type.Object({
            row_id: Uuid,
            data: Type.Record(Type.String(), Type.Unknown()),
            user_id: Type.Union([Uuid, Type.Null()]),
            created_at: Timestamp,
            updated_at: Timestamp,
          }),
        ),
      }),
    ),
    objects: Type.Array(UserObjectRecord),
    factors: Type.Array(Factor, { description: 'Second factors (docs/mfa.md): type, name and dates; never a TOTP secret, a public key or a recovery code' }),
    organizations: Type.Array(
      Type.Object({ organization_id: Uuid, name: Type.String(), slug: Type.String(), role: Type.String(), created_at: Timestamp, updated_at: Timestamp }),
      { description: "The user's memberships (docs/organizations.md)" },
    ),
    events: Type.Array(Type.Record(Type.String(), Type.Unknown()), { description: "The user's events, newest first (docs/events.md), this export's user.exported among them" }),
  },
  { description: "Everything the app holds about the user (no password, token hash or secret); only tables holding a row of the user are listed" },
);

export function userDeletionRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = usersRoutes(guards);
  const sessions = routesOf(guards, 'sessions');

  app.delete(
    '/v1/users/:user_id',
    route.secret({
      operationId: 'deleteUser',
      summary: 'Delete a user and everything they own (sessions, identities, rows, objects); their tokens are refused at once',
      params: UserParams,
      response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) },
    }),
    async (request) => deleted(deleteUser(deps, request.application!, request.params.user_id, eventContext(request))),
  );

  app.delete(
    '/v1/me',
    sessions.session({
      operationId: 'deleteMe',
      summary: 'Delete my account and everything it owns (needs a sign-in within the last 10 minutes)',
      description:
        "403 when the app's --self-delete is off, the session signed in more than 10 minutes ago (the token's auth_time, which a refresh keeps: sign in again), " +
        'or the user has a second factor and the session is aal1 (aal2_required). Clears the cookies.',
      response: { 200: StatusBody('deleted'), ...errors(401, 403, 404) },
    }),
    async (request, reply) => deleted(clearAuthCookiesAfter(reply, deps.config, deleteOwnAccount(deps, request.application!, request.session!, eventContext(request)))),
  );

  app.get(
    '/v1/users/:user_id/export',
    route.secret({
      operationId: 'exportUser',
      summary: "Export a user: their record, identities, sessions, rows, objects' metadata, second factors and organisations, streamed",
      params: UserParams,
      response: { 200: ExportBody, ...errors(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      const chunks = await exportUser(deps, request.application!, request.params.user_id, eventContext(request));
      // A stream is sent as it is read (the schema documents it; Fastify does not serialize streams).
      return reply.type('application/json; charset=utf-8').send(Readable.from(chunks) as unknown as Static<typeof ExportBody>);
    },
  );
}
