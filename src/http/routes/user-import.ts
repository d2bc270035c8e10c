import { Type } from '@sinclair/typebox';
import type { Deps } from '../../deps.js';
import { ALGORITHMS } from '../../crypto/imported-hashes.js';
import { ERROR_CODES } from '../../errors.js';
import { IMPORT_MAX, importUsers } from '../../services/accounts/user-import.js';
import { eventContext } from '../event-context.js';
import type { Guards } from '../plugins/guards.js';
import { errors, SafeInteger, Uuid } from '../schemas.js';
import type { Http } from '../types.js';
import { usersRoutes } from './users.js';

// docs/import.md: users brought in from another service with their password hashes (Secret). The schema
// checks the types only: whatever else is wrong with a user (its email, hash, cost, TOTP secret) fails that
// item's result, never the call.

const PasswordHash = Type.Object(
  {
    algorithm: Type.String({ maxLength: 40, description: ALGORITHMS.join(', ') }),
    hash: Type.Optional(Type.String({ maxLength: 1024 })),
    salt: Type.Optional(Type.String({ maxLength: 1024 })),
    salt_encoding: Type.Optional(Type.String({ maxLength: 10, description: 'md5/sha*: utf8 (default), base64 or hex' })),
    salt_position: Type.Optional(Type.String({ maxLength: 10, description: 'md5/sha*: prefix or suffix' })),
    n: Type.Optional(SafeInteger({ description: 'scrypt: a power of two, at most 2^20' })),
    r: Type.Optional(SafeInteger({})),
    p: Type.Optional(SafeInteger({})),
    key_length: Type.Optional(SafeInteger({ description: 'scrypt: bytes of the hash (default 64)' })),
    signer_key: Type.Optional(Type.String({ maxLength: 1024, description: "firebase_scrypt: base64_signer_key of the project's hash parameters" })),
    salt_separator: Type.Optional(Type.String({ maxLength: 1024 })),
    rounds: Type.Optional(SafeInteger({})),
    mem_cost: Type.Optional(SafeInteger({})),
  },
  { description: 'a hash made elsewhere, verified at sign-in and then replaced by argon2id (docs/import.md)' },
);

const ImportUser = Type.Object({
  email: Type.String({ maxLength: 1000 }),
  email_verified: Type.Optional(Type.Boolean({ default: false })),
  password_hash: Type.Optional(PasswordHash),
  password: Type.Optional(Type.String({ maxLength: 1000, description: 'hashed by the server; not with password_hash' })),
  external_id: Type.Optional(Type.String({ maxLength: 1000, description: "1 to 255 characters, unique in the app: the user's id where it came from" })),
  created_at: Type.Optional(Type.String({ maxLength: 100 })),
  identities: Type.Optional(
    Type.Array(Type.Object({ provider: Type.String({ maxLength: 100 }), subject: Type.String({ maxLength: 1000 }), email: Type.Optional(Type.String({ maxLength: 1000 })) }), { maxItems: 100 }),
  ),
  totp_secret: Type.Optional(Type.String({ maxLength: 1000, description: 'base32: becomes a verified TOTP factor' })),
  locale: Type.Optional(Type.String({ maxLength: 64, description: "BCP 47: the language of the user's emails (docs/email.md)" })),
});

const ImportBody = Type.Object({
  users: Type.Array(ImportUser, { minItems: 1, maxItems: IMPORT_MAX }),
  on_conflict: Type.Optional(Type.Union([Type.Literal('skip'), Type.Literal('error')], { default: 'error' })),
});

const ImportResult = Type.Object({
  index: Type.Integer(),
  status: Type.Union([Type.Literal('created'), Type.Literal('skipped'), Type.Literal('error')]),
  user_id: Type.Union([Uuid, Type.Null()], { description: 'the new user, or the one already holding the email or external_id (skipped)' }),
  detail: Type.Union([Type.String(), Type.Null()]),
  code: Type.Union([Type.Union(ERROR_CODES.map((code) => Type.Literal(code))), Type.Null()], { description: 'why the item failed (docs/api.md)' }),
});

const ImportAnswer = Type.Object({
  created: Type.Integer(),
  skipped: Type.Integer(),
  failed: Type.Integer(),
  results: Type.Array(ImportResult, { description: 'one per user sent, in order' }),
});

export function userImportRoutes(app: Http, deps: Deps, guards: Guards): void {
  app.post(
    '/v1/users/import',
    {
      ...usersRoutes(guards).secret({
        operationId: 'importUsers',
        summary: 'Import up to 1,000 users with their password hashes, identities and TOTP secrets, each its own write',
        body: ImportBody,
        response: { 200: ImportAnswer, ...errors(400, 401, 403, 413) },
      }),
      // 1,000 users with Firebase scrypt parameters each are about 0.5 MiB.
      bodyLimit: 8 * 1024 * 1024,
    },
    async (request) => importUsers(deps, request.application!, request.body, eventContext(request)),
  );
}
