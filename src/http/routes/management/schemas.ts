import { Type } from '@sinclair/typebox';
import { Timestamp } from '../../schemas.js';

// The Management API's bodies (docs/management.md), shared by its route modules.

export const Role = Type.Union([Type.Literal('owner'), Type.Literal('admin'), Type.Literal('viewer')]);
const Nullable = <T extends ReturnType<typeof Type.String>>(schema: T) => Type.Union([schema, Type.Null()]);

export const TenantBody = Type.Object({ tenant_id: Type.String(), name: Type.String(), role: Role, created_at: Timestamp }, { title: 'Tenant' });

export const MemberBody = Type.Object({ user_id: Type.String(), email: Nullable(Type.String()), role: Role, created_at: Timestamp }, { title: 'TenantMember' });

export const MembershipBody = Type.Object({ tenant_id: Type.String(), user_id: Type.String(), email: Nullable(Type.String()), role: Role, created_at: Timestamp }, { title: 'TenantMembership' });

export const InvitationBody = Type.Object({
  invitation_id: Type.String(),
  tenant_id: Type.String(),
  email: Type.String(),
  role: Role,
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked'), Type.Literal('expired')]),
  expires_at: Timestamp,
  created_at: Timestamp,
}, { title: 'TenantInvitation' });

export const TokenBody = Type.Object({ token_id: Type.String(), name: Type.String(), role: Role, expires_at: Type.Union([Timestamp, Type.Null()]), created_at: Timestamp }, { title: 'ApiToken' });

/** An app's settings under the names `gatehouse app show --json` prints. */
export const AppSettingsFields = {
  domain: Type.Optional(Type.Union([Type.String({ maxLength: 253 }), Type.Null()])),
  allowed_origins: Type.Optional(Type.Array(Type.String({ maxLength: 2048 }), { maxItems: 100 })),
  verification_method: Type.Optional(Type.Union([Type.Literal('code'), Type.Literal('link'), Type.Literal('both')])),
  passwords_enabled: Type.Optional(Type.Boolean()),
  hashcash_enabled: Type.Optional(Type.Boolean()),
  hashcash_difficulty: Type.Optional(Type.Integer({ minimum: 0, maximum: 32 })),
  bot_min_usd: Type.Optional(Type.Number({ minimum: 0, maximum: 1_000_000 })),
  tables_limit_bytes: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()])),
  objects_limit_bytes: Type.Optional(Type.Union([Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER }), Type.Null()])),
  link_landing: Type.Optional(Type.Boolean()),
  self_delete: Type.Optional(Type.Boolean()),
  mfa: Type.Optional(Type.Union([Type.Literal('optional'), Type.Literal('required')])),
  token_claims: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  organizations_enabled: Type.Optional(Type.Boolean()),
  email_from: Type.Optional(Type.Union([Type.String({ maxLength: 320 }), Type.Null()])),
  reply_to: Type.Optional(Type.Union([Type.String({ maxLength: 320 }), Type.Null()])),
  org_creation: Type.Optional(Type.Union([Type.Literal('users'), Type.Literal('server')])),
  cookie_domain: Type.Optional(Type.Union([Type.String({ maxLength: 253 }), Type.Null()])),
};

/** The service's settings from a body's snake_case names. */
export function settingsOf(body: Record<string, unknown>) {
  const b = body as { [K in keyof typeof AppSettingsFields]?: any } & { name?: string };
  return {
    name: b.name,
    domain: b.domain,
    allowedOrigins: b.allowed_origins,
    verificationMethod: b.verification_method,
    passwordsEnabled: b.passwords_enabled,
    hashcashEnabled: b.hashcash_enabled,
    hashcashDifficulty: b.hashcash_difficulty,
    botMinUsd: b.bot_min_usd,
    tablesLimitBytes: b.tables_limit_bytes,
    objectsLimitBytes: b.objects_limit_bytes,
    linkLanding: b.link_landing,
    selfDelete: b.self_delete,
    mfa: b.mfa,
    tokenClaims: b.token_claims,
    organizations: b.organizations_enabled,
    orgCreation: b.org_creation,
    emailFrom: b.email_from,
    replyTo: b.reply_to,
    cookieDomain: b.cookie_domain,
  };
}
