import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import * as invitations from '../../../services/organizations/invitations.js';
import * as members from '../../../services/organizations/members.js';
import type { Guards } from '../../plugins/guards.js';
import { deleted, errors, ListOf, PageOf, StatusBody, Uuid } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { actorOf, InvitationBody, InvitationParams, MemberBody, MemberParams, NextCursor, OrgParams, PageQuery, RoleKey } from './schemas.js';

// docs/organizations.md: members and invitations of an organisation.

export function organizationMemberRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'organizations');

  app.get(
    '/v1/organizations/:organization_id/members',
    route.secretOrSession({ operationId: 'listOrganizationMembers', summary: "The organisation's members, a page at a time (any member)", params: OrgParams, querystring: PageQuery, response: { 200: PageOf('members', MemberBody, NextCursor), ...errors(400, 401, 403, 404) } }),
    async (request) => members.listMembers(deps, request.application!, actorOf(request), request.params.organization_id, request.query),
  );

  app.post(
    '/v1/organizations/:organization_id/members',
    route.secret({ operationId: 'addOrganizationMember', summary: 'Add a user of the app to the organisation with a role', params: OrgParams, body: Type.Object({ user_id: Uuid, role: RoleKey }), response: { 201: MemberBody, ...errors(400, 401, 403, 404, 409) } }),
    async (request, reply) =>
      reply.code(201).send(await members.addMember(deps, request.application!, request.params.organization_id, { userId: request.body.user_id, role: request.body.role }, actorOf(request))),
  );

  app.patch(
    '/v1/organizations/:organization_id/members/:user_id',
    route.secretOrSession({
      operationId: 'updateOrganizationMember',
      summary: "Change a member's role (org:members:manage; only an owner makes or changes an owner; the last owner stays)",
      params: MemberParams,
      body: Type.Object({ role: RoleKey }),
      response: { 200: MemberBody, ...errors(400, 401, 403, 404, 409) },
    }),
    async (request) => members.changeRole(deps, request.application!, actorOf(request), request.params.organization_id, request.params.user_id, request.body),
  );

  app.delete(
    '/v1/organizations/:organization_id/members/:user_id',
    route.secretOrSession({ operationId: 'removeOrganizationMember', summary: 'Remove a member (oneself, or org:members:manage); the last owner stays (409)', params: MemberParams, response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404, 409) } }),
    async (request) => deleted(members.removeMember(deps, request.application!, actorOf(request), request.params.organization_id, request.params.user_id)),
  );

  app.post(
    '/v1/organizations/:organization_id/invitations',
    route.secretOrSession({
      operationId: 'createOrganizationInvitation',
      summary: 'Invite an email address (org:invitations:manage): emailed with a link carrying ?invitation_token=',
      description: 'The link opens redirect_url (on the allow-list), else the app\'s first allowed origin. 20 an hour and 100 pending per organisation (429 with Retry-After).',
      params: OrgParams,
      body: Type.Object({
        email: Type.String({ format: 'email', maxLength: 254 }),
        role: RoleKey,
        redirect_url: Type.Optional(Type.String({ maxLength: 2048 })),
      }),
      response: { 201: InvitationBody, ...errors(400, 401, 403, 404, 429) },
    }),
    async (request, reply) => {
      const { email, role, redirect_url } = request.body;
      const created = await invitations.createInvitation(deps, request.application!, actorOf(request), request.params.organization_id, { email, role, redirectUrl: redirect_url });
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/v1/organizations/:organization_id/invitations',
    route.secretOrSession({
      operationId: 'listOrganizationInvitations',
      summary: "The organisation's invitations (org:invitations:manage)",
      params: OrgParams,
      querystring: Type.Intersect([PageQuery, Type.Object({ status: Type.Optional(Type.Union([Type.Literal('pending'), Type.Literal('accepted'), Type.Literal('revoked')])) })]),
      response: { 200: PageOf('invitations', InvitationBody, NextCursor), ...errors(400, 401, 403, 404) },
    }),
    async (request) => invitations.listInvitations(deps, request.application!, actorOf(request), request.params.organization_id, request.query),
  );

  app.get(
    '/v1/organizations/:organization_id/invitations/:invitation_id',
    route.secretOrSession({ operationId: 'getOrganizationInvitation', summary: 'One invitation (org:invitations:manage)', params: InvitationParams, response: { 200: InvitationBody, ...errors(400, 401, 403, 404) } }),
    async (request) => invitations.getInvitation(deps, request.application!, actorOf(request), request.params.organization_id, request.params.invitation_id),
  );

  app.delete(
    '/v1/organizations/:organization_id/invitations/:invitation_id',
    route.secretOrSession({ operationId: 'revokeOrganizationInvitation', summary: 'Revoke a pending invitation (org:invitations:manage)', params: InvitationParams, response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) } }),
    async (request) => deleted(invitations.revokeInvitation(deps, request.application!, actorOf(request), request.params.organization_id, request.params.invitation_id)),
  );

  app.get(
    '/v1/me/invitations',
    route.session({ operationId: 'listMyInvitations', summary: "The pending invitations to the signed-in user's verified email", response: { 200: ListOf('invitations', InvitationBody), ...errors(401, 403, 404) } }),
    async (request) => invitations.myInvitations(deps, request.application!, request.session!.userId),
  );

  app.post(
    '/v1/invitations/accept',
    route.session({
      operationId: 'acceptInvitation',
      summary: "Accept an invitation by its emailed token or its id, with a session whose verified email is the invitation's",
      body: Type.Object({ token: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })), invitation_id: Type.Optional(Uuid) }),
      response: { 200: MemberBody, ...errors(400, 401, 403, 404, 409) },
    }),
    async (request) => invitations.acceptInvitation(deps, request.application!, request.session!.userId, { token: request.body.token, invitationId: request.body.invitation_id }, actorOf(request)),
  );
}
