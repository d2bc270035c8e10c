import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { notFound } from '../../errors.js';
import { revokeSession } from '../../services/sessions/sessions.js';
import { createUser, getUser, issueSignInToken, listUsers } from '../../services/accounts/users.js';
import { updateUserByServer } from '../../services/accounts/user-updates.js';
import { exportedUser } from '../../services/accounts/user-export.js';
import { eventContext } from '../event-context.js';
import type { Guards } from '../plugins/guards.js';
import { errors, SafeInteger, StatusBody, Timestamp, Uuid } from '../schemas.js';
import type { Http } from '../types.js';
import { routesOf } from '../route-security.js';

// docs/users.md: server-side user management, session revocation and sign-in tokens (Secret).

/** A metadata object (any JSON object, at most 8 KiB as JSON text; docs/users.md). */
export const Metadata = (description: string) => Type.Record(Type.String(), Type.Unknown(), { description });

export const PublicMetadata = Metadata('written by the server, read by the user too (GET /v1/me)');
export const PrivateMetadata = Metadata('written and read by the server only');
export const UnsafeMetadata = Metadata('written by the user (PATCH /v1/me): never trust it');

/** A user's locale as a body sets it: a BCP 47 tag (kept canonical; 400 invalid_locale otherwise), or null to forget it. */
export const Locale = Type.Union([Type.String({ minLength: 1, maxLength: 35 }), Type.Null()], {
  description: "the language of the user's emails, a BCP 47 tag such as fr or de-AT (kept in canonical case); null: English",
});

export const UserBody = Type.Object(
  {
    id: Uuid,
    email: Type.Union([Type.String(), Type.Null()], { description: 'null for bots' }),
    email_verified: Type.Boolean(),
    is_bot: Type.Boolean(),
    public_metadata: PublicMetadata,
    private_metadata: PrivateMetadata,
    unsafe_metadata: UnsafeMetadata,
    banned: Type.Boolean({ description: 'every sign-in and refresh is refused while true' }),
    external_id: Type.Union([Type.String(), Type.Null()], { description: "an imported user's id where it came from (POST /v1/users/import); null otherwise" }),
    locale: Type.Union([Type.String(), Type.Null()], { description: "the language of the user's emails, a BCP 47 tag; null: English" }),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'User', description: 'A user of the application' },
);

const UpdateBody = Type.Object(
  {
    email: Type.Optional(Type.String({ format: 'email', maxLength: 254, description: 'unverified unless email_verified is given; 409 when another user has it' })),
    email_verified: Type.Optional(Type.Boolean()),
    public_metadata: Type.Optional(PublicMetadata),
    private_metadata: Type.Optional(PrivateMetadata),
    unsafe_metadata: Type.Optional(UnsafeMetadata),
    banned: Type.Optional(Type.Boolean({ description: "true ends the user's sessions at once and refuses every sign-in (403 user_banned); false lets them sign in again" })),
    locale: Type.Optional(Locale),
  },
  { minProperties: 1 },
);

const ListQuery = Type.Object({
  limit: SafeInteger({ minimum: 1, maximum: 200, default: 50 }),
  offset: SafeInteger({ minimum: 0, maximum: 10_000_000, default: 0 }),
  email: Type.Optional(Type.String({ minLength: 1, maxLength: 254, description: 'exact match, case-insensitive' })),
  external_id: Type.Optional(Type.String({ minLength: 1, maxLength: 255, description: "exact match: the imported user with this id where it came from" })),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: 'next_cursor of the previous page: the page starts after its last user' })),
  include_total: Type.Optional(Type.Boolean({ description: 'accepted and ignored: `total` is always answered' })),
});

const UserList = Type.Object({
  users: Type.Array(UserBody),
  total: Type.Integer({ description: 'every user matching the query (with `email` or `external_id`: 0 or 1)' }),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'where the next page starts; null on the last page' }),
}, { title: 'UserList' });

const CreateBody = Type.Object({
  email: Type.String({ format: 'email', maxLength: 254 }),
  password: Type.Optional(Type.Union([Type.String({ minLength: 8, maxLength: 256 }), Type.Null()])),
  locale: Type.Optional(Locale),
});

const SignInTokenBody = Type.Object({
  user_id: Uuid,
  expires_in_seconds: SafeInteger({ minimum: 1, default: 300, description: 'clamped to MAX_SIGNIN_TOKEN_LIFETIME_SECONDS' }),
});

const SignInTokenResult = Type.Object({
  token: Type.String({ description: 'access JWT; its exp is expires_at' }),
  refresh_token: Type.String(),
  user_id: Uuid,
  session_id: Uuid,
  expires_at: Timestamp,
});

/** The Secret routes about one user, in one group (this module, user-deletion.ts, user-sessions.ts). */
export const usersRoutes = (guards: Guards) => routesOf(guards, 'users and sessions');
export const UserParams = Type.Object({ user_id: Uuid });

export function userRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = usersRoutes(guards);

  app.get(
    '/v1/users',
    route.secret({
      operationId: 'listUsers',
      summary: "A page of the app's users, newest first",
      querystring: ListQuery,
      response: { 200: UserList, ...errors(400, 401, 403) },
    }),
    async (request) => {
      const { include_total: _ignored, external_id: externalId, ...query } = request.query;
      const page = await listUsers(deps, request.application!.id, { ...query, externalId });
      return { users: page.users.map(exportedUser), total: page.total, next_cursor: page.nextCursor };
    },
  );

  app.post(
    '/v1/users',
    route.secret({
      operationId: 'createUser',
      summary: 'Create a user (email_verified false; no verification, no rate limit)',
      body: CreateBody,
      response: { 201: UserBody, ...errors(400, 401, 403, 409) },
    }),
    async (request, reply) => {
      const user = await createUser(deps, request.application!, request.body, { event: { context: eventContext(request), source: 'server' } });
      return reply.code(201).send(exportedUser(user));
    },
  );

  app.get(
    '/v1/users/:user_id',
    route.secret({
      operationId: 'getUser',
      summary: 'One user of the app',
      params: UserParams,
      response: { 200: UserBody, ...errors(400, 401, 403, 404) },
    }),
    async (request) => exportedUser(await getUser(deps, request.application!.id, request.params.user_id)),
  );

  app.patch(
    '/v1/users/:user_id',
    route.secret({
      operationId: 'updateUser',
      summary: 'Change a user: email, email_verified, metadata (each replaced whole), banned, locale',
      params: UserParams,
      body: UpdateBody,
      response: { 200: UserBody, ...errors(400, 401, 403, 404, 409) },
    }),
    async (request) => exportedUser(await updateUserByServer(deps, request.application!, request.params.user_id, request.body, eventContext(request))),
  );

  app.post(
    '/v1/sessions/revoke',
    route.secret({
      operationId: 'revokeSession',
      summary: 'Revoke a session: its access token is refused at once, its refresh token dies',
      querystring: Type.Object({ session_id: Uuid }),
      response: { 200: StatusBody('revoked'), ...errors(400, 401, 403, 404) },
    }),
    async (request) => {
      if (!(await revokeSession(deps, request.application!, request.query.session_id, eventContext(request)))) {
        throw notFound('session not found or already revoked');
      }
      return { status: 'revoked' as const };
    },
  );

  app.post(
    '/v1/sign_in_tokens',
    route.secret({
      operationId: 'createSignInToken',
      summary: 'Issue a session for a user on the server’s word (a sign-in token)',
      body: SignInTokenBody,
      response: { 200: SignInTokenResult, ...errors(400, 401, 403, 404) },
    }),
    async (request) => issueSignInToken(deps, request.application!, request.body.user_id, request.body.expires_in_seconds, eventContext(request)),
  );
}
