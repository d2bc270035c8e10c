import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { createApiToken, listApiTokensOf, revokeApiTokenOf } from '../../../services/management/api-tokens.js';
import { acceptInvitation, invite, listInvitationsOf, revokeInvitationOf, showInvitation } from '../../../services/management/invitations.js';
import { eventContext } from '../../event-context.js';
import type { Guards } from '../../plugins/guards.js';
import { deleted, errors, SafeInteger, StatusBody } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { InvitationBody, MembershipBody, Role, TokenBody } from './schemas.js';
import { TenantParams, tenantListRoute } from './tenant-list.js';

// docs/management.md: invitations to a tenant and its API tokens (Console).

const Id = Type.String({ minLength: 1, maxLength: 64 });

export function managementInvitationRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'management');

  app.post(
    '/v1/tenants/:tenant_id/invitations',
    route.console({
      operationId: 'createTenantInvitation',
      summary: 'Invite an email to the tenant (emailed; 7 days)',
      params: TenantParams,
      body: Type.Object({ email: Type.String({ format: 'email', maxLength: 254 }), role: Role }),
      response: { 201: InvitationBody, ...errors(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      const { invitation_url: _shownByEmailOnly, ...invitation } = await invite(deps, request.consoleCaller!, request.params.tenant_id, request.body.email, request.body.role, eventContext(request));
      return reply.code(201).send(invitation);
    },
  );

  tenantListRoute(app, deps, route, { name: 'invitations', item: InvitationBody, operationId: 'listTenantInvitations', summary: "The tenant's invitations" }, listInvitationsOf);

  app.get(
    '/v1/tenants/:tenant_id/invitations/:invitation_id',
    route.console({ operationId: 'getTenantInvitation', summary: 'An invitation', params: Type.Object({ tenant_id: Id, invitation_id: Id }), response: { 200: InvitationBody, ...errors(401, 404) } }),
    async (request) => showInvitation(deps, request.consoleCaller!, request.params.tenant_id, request.params.invitation_id),
  );

  app.delete(
    '/v1/tenants/:tenant_id/invitations/:invitation_id',
    route.console({ operationId: 'deleteTenantInvitation', summary: 'Revoke a pending invitation', params: Type.Object({ tenant_id: Id, invitation_id: Id }), response: { 200: StatusBody('deleted'), ...errors(401, 403, 404) } }),
    async (request) => deleted(revokeInvitationOf(deps, request.consoleCaller!, request.params.tenant_id, request.params.invitation_id, eventContext(request))),
  );

  app.post(
    '/v1/tenant_invitations/accept',
    route.console({
      operationId: 'acceptTenantInvitation',
      summary: "Accept an invitation with a console session of the invited, verified email",
      body: Type.Object({ token: Type.String({ minLength: 1, maxLength: 200 }) }),
      response: { 200: MembershipBody, ...errors(400, 401, 403) },
    }),
    async (request) => acceptInvitation(deps, request.consoleCaller!, request.body.token, eventContext(request)),
  );

  app.post(
    '/v1/tenants/:tenant_id/tokens',
    route.console({
      operationId: 'createApiToken',
      summary: 'A tenant API token (tk_..., shown once)',
      params: TenantParams,
      body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }), role: Role, expires_in_days: Type.Optional(SafeInteger({ minimum: 1, maximum: 3650 })) }),
      response: { 201: Type.Composite([TokenBody, Type.Object({ token: Type.String({ description: 'shown once' }) })]), ...errors(400, 401, 403, 404) },
    }),
    async (request, reply) => {
      const { name, role, expires_in_days: expiresInDays } = request.body;
      return reply.code(201).send(await createApiToken(deps, request.consoleCaller!, request.params.tenant_id, { name, role, expiresInDays }, eventContext(request)));
    },
  );

  tenantListRoute(app, deps, route, { name: 'tokens', item: TokenBody, operationId: 'listApiTokens', summary: "The tenant's live API tokens (never the token)" }, listApiTokensOf);

  app.delete(
    '/v1/tenants/:tenant_id/tokens/:token_id',
    route.console({ operationId: 'deleteApiToken', summary: 'Revoke an API token (refused at once on every node)', params: Type.Object({ tenant_id: Id, token_id: Id }), response: { 200: StatusBody('deleted'), ...errors(401, 403, 404) } }),
    async (request) => deleted(revokeApiTokenOf(deps, request.consoleCaller!, request.params.tenant_id, request.params.token_id, eventContext(request))),
  );
}
