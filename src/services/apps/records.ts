import { Type, type Static } from '@sinclair/typebox';
import { Timestamp } from '../wire-formats.js';

// docs/management.md: the application record, declared once: the Management API's schema
// (http/routes/management/) and the type of what the CLI and the services answer (AppView).

/**
 * A string the document leaves open (`type: string`) while the service only ever gives one of `T`: the
 * callers see `T`, the wire is unchanged.
 */
const StringOf = <T extends string>() => Type.Unsafe<T>({ type: 'string' });

/** The app as the CLI and admin API show it; `secret_key` only right after it was made. */
export const AppRecord = Type.Object(
  {
    app_id: Type.String(),
    tenant_id: Type.String(),
    name: Type.String(),
    publishable_key: Type.String(),
    secret_key: Type.Optional(Type.String({ description: 'only in the answer of the creation: shown once' })),
    domain: Type.Union([Type.String(), Type.Null()]),
    allowed_origins: Type.Array(Type.String()),
    verification_method: StringOf<'code' | 'link' | 'both'>(),
    passwords_enabled: Type.Boolean(),
    /** As stored: null follows the server's HASHCASH_ENABLED (never resolved from the caller's environment). */
    hashcash_enabled: Type.Union([Type.Boolean(), Type.Null()], { description: "null: the server's HASHCASH_ENABLED" }),
    hashcash_difficulty: Type.Integer(),
    bot_min_usd: Type.Number(),
    link_landing: Type.Boolean(),
    self_delete: Type.Boolean(),
    mfa: StringOf<'optional' | 'required'>(),
    /** null: the server's TABLES_STORAGE_LIMIT_BYTES applies. */
    tables_limit_bytes: Type.Union([Type.Integer(), Type.Null()]),
    objects_limit_bytes: Type.Union([Type.Integer(), Type.Null()]),
    /** The custom claims template, or null: tokens carry only the service's claims. */
    token_claims: Type.Union([Type.Record(Type.String(), Type.String()), Type.Null()]),
    organizations_enabled: Type.Boolean(),
    /** The app's sender and Reply-To of its emails (docs/email.md); null: EMAIL_FROM, and no Reply-To. */
    email_from: Type.Union([Type.String(), Type.Null()]),
    reply_to: Type.Union([Type.String(), Type.Null()]),
    org_creation: StringOf<'users' | 'server'>(),
    /** `__session` is set for this parent domain of `domain` (docs/browser.md); null: host-only. */
    cookie_domain: Type.Union([Type.String(), Type.Null()]),
    signing_key_id: Type.Union([Type.String(), Type.Null()]),
    created_at: Timestamp,
    updated_at: Timestamp,
  },
  { title: 'App', description: 'An application, its settings as stored (null: the server default)' },
);

export type AppView = Static<typeof AppRecord>;
