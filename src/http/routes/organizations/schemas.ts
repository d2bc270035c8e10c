import { Type } from '@sinclair/typebox';
import type { FastifyRequest } from 'fastify';
import type { OrgActor } from '../../../services/organizations/organizations.js';
import { SafeInteger, Timestamp, Uuid } from '../../schemas.js';
import { eventContext } from '../../event-context.js';

// The records of docs/organizations.md as the routes declare them.

/** Who a request is: the secret key, or the session's user. */
export const actorOf = (request: FastifyRequest): OrgActor =>
  request.appVia === 'secret'
    ? { type: 'secret_key', context: eventContext(request) }
    : { type: 'user', userId: request.session!.userId, sessionId: request.session!.sessionId, context: eventContext(request) };

export const OrgMetadata = Type.Record(Type.String(), Type.Unknown(), { description: 'a JSON object of at most 8 KiB: written by the server, read by members' });
export const Slug = Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,62}$' });
export const Name = Type.String({ minLength: 1, maxLength: 100 });
export const RoleKey = Type.String({ minLength: 1, maxLength: 40, description: 'owner, admin, member, or a custom role key' });
export const NextCursor = Type.Union([Type.String(), Type.Null()], { description: 'where the next page starts; null on the last page' });

export const OrganizationBody = Type.Object({
  organization_id: Uuid,
  name: Type.String(),
  slug: Type.String(),
  metadata: OrgMetadata,
  members_count: Type.Integer(),
  created_at: Timestamp,
  updated_at: Timestamp,
  role: Type.Optional(Type.String({ description: "the caller's role (a member's view)" })),
  permissions: Type.Optional(Type.Array(Type.String(), { description: "the caller's permissions (a member's view)" })),
}, { title: 'Organization' });

export const MemberBody = Type.Object({
  organization_id: Uuid,
  user_id: Uuid,
  email: Type.Union([Type.String(), Type.Null()]),
  role: Type.String(),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'OrganizationMember' });

export const InvitationBody = Type.Object({
  invitation_id: Uuid,
  organization_id: Uuid,
  email: Type.String(),
  role: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked'), Type.Literal('expired')]),
  expires_at: Timestamp,
  created_at: Timestamp,
  organization_name: Type.Optional(Type.String()),
  organization_slug: Type.Optional(Type.String()),
}, { title: 'OrganizationInvitation' });

export const RoleBody = Type.Object({
  key: Type.String(),
  name: Type.String(),
  permissions: Type.Array(Type.String(), { description: 'org:read and the permissions the role lists' }),
  created_at: Timestamp,
  updated_at: Timestamp,
}, { title: 'OrganizationRole' });

export const PageQuery = Type.Object({
  limit: SafeInteger({ minimum: 1, maximum: 100, default: 50 }),
  cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
});

export const OrgParams = Type.Object({ organization_id: Uuid });
export const MemberParams = Type.Object({ organization_id: Uuid, user_id: Uuid });
export const InvitationParams = Type.Object({ organization_id: Uuid, invitation_id: Uuid });
