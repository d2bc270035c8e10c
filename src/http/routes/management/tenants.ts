import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { changeMemberRole, listMembersOf, removeMember } from '../../../services/management/members.js';
import { createTenantFor, deleteTenantOf, listTenantsOf, renameTenant, showTenantTo } from '../../../services/management/tenants.js';
import { eventContext } from '../../event-context.js';
import type { Guards } from '../../plugins/guards.js';
import { listTenantEvents } from '../../../services/events/query.js';
import { requireRight } from '../../../services/management/roles.js';
import { EventList, EventListQuery } from '../events.js';
import { deleted, errors, PageOf, SafeInteger, StatusBody } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { MemberBody, Role, TenantBody } from './schemas.js';
import { TenantParams, tenantListRoute } from './tenant-list.js';

// docs/management.md: tenants and their members (Console).

const MemberParams = Type.Object({ tenant_id: Type.String({ minLength: 1, maxLength: 64 }), user_id: Type.String({ minLength: 1, maxLength: 64 }) });
const NameBody = Type.Object({ name: Type.String({ minLength: 1, maxLength: 200 }) });

export function managementTenantRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'management');

  app.get(
    '/v1/tenants',
    route.console({
      operationId: 'listTenants',
      summary: "The caller's tenants (the operator: every tenant, paged)",
      querystring: Type.Object({ limit: SafeInteger({ minimum: 1, maximum: 200, default: 50 }), cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })) }),
      response: { 200: PageOf('tenants', TenantBody), ...errors(400, 401) },
    }),
    async (request) => listTenantsOf(deps, request.consoleCaller!, request.query),
  );

  app.post(
    '/v1/tenants',
    route.console({ operationId: 'createTenant', summary: 'Create a tenant; the console user calling becomes its owner', body: NameBody, response: { 201: TenantBody, ...errors(400, 401, 403) } }),
    async (request, reply) => reply.code(201).send(await createTenantFor(deps, request.consoleCaller!, request.body.name, deps.config.consoleOpenSignup, eventContext(request))),
  );

  app.get(
    '/v1/tenants/:tenant_id',
    route.console({ operationId: 'getTenant', summary: 'A tenant', params: TenantParams, response: { 200: TenantBody, ...errors(401, 404) } }),
    async (request) => showTenantTo(deps, request.consoleCaller!, request.params.tenant_id),
  );

  app.patch(
    '/v1/tenants/:tenant_id',
    route.console({ operationId: 'updateTenant', summary: 'Rename a tenant', params: TenantParams, body: NameBody, response: { 200: TenantBody, ...errors(400, 401, 403, 404) } }),
    async (request) => renameTenant(deps, request.consoleCaller!, request.params.tenant_id, request.body.name, eventContext(request)),
  );

  app.delete(
    '/v1/tenants/:tenant_id',
    route.console({ operationId: 'deleteTenant', summary: 'Delete a tenant and every app of it (owners)', params: TenantParams, response: { 200: StatusBody('deleted'), ...errors(401, 403, 404) } }),
    async (request) => deleted(deleteTenantOf(deps, request.consoleCaller!, request.params.tenant_id, eventContext(request))),
  );

  tenantListRoute(app, deps, route, { name: 'members', item: MemberBody, operationId: 'listTenantMembers', summary: "The tenant's members" }, listMembersOf);

  app.patch(
    '/v1/tenants/:tenant_id/members/:user_id',
    route.console({ operationId: 'updateTenantMember', summary: "Change a member's role (the last owner stays: 409)", params: MemberParams, body: Type.Object({ role: Role }), response: { 200: MemberBody, ...errors(400, 401, 403, 404, 409) } }),
    async (request) => changeMemberRole(deps, request.consoleCaller!, request.params.tenant_id, request.params.user_id, request.body.role, eventContext(request)),
  );

  app.delete(
    '/v1/tenants/:tenant_id/members/:user_id',
    route.console({ operationId: 'deleteTenantMember', summary: 'Remove a member, or oneself (the last owner stays: 409)', params: MemberParams, response: { 200: StatusBody('deleted'), ...errors(401, 403, 404, 409) } }),
    async (request) => deleted(removeMember(deps, request.consoleCaller!, request.params.tenant_id, request.params.user_id, eventContext(request))),
  );

  app.get(
    '/v1/tenants/:tenant_id/events',
    route.console({
      operationId: 'listTenantEvents',
      summary: "A page of the tenant's own events (management actions, app_id null), newest first",
      params: TenantParams,
      querystring: Type.Omit(EventListQuery, ['user_id']),
      response: { 200: EventList, ...errors(400, 401, 404) },
    }),
    async (request) => {
      await requireRight(deps.db, request.consoleCaller!, request.params.tenant_id, 'read');
      return listTenantEvents(deps, request.params.tenant_id, request.query);
    },
  );
}
