import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import * as roles from '../../../services/organizations/roles.js';
import type { Guards } from '../../plugins/guards.js';
import { deleted, errors, ListOf, StatusBody } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { actorOf, Name, RoleBody } from './schemas.js';

// docs/organizations.md: an app's custom organisation roles (Secret).

const Permissions = Type.Array(Type.String({ minLength: 1, maxLength: 64 }), { maxItems: 50, description: 'permission strings, built-in (org:update, ...) or the app\'s own' });
const KeyParams = Type.Object({ key: Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }) });

export function organizationRoleRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'organizations');

  app.post(
    '/v1/organization_roles',
    route.secret({
      operationId: 'createOrganizationRole',
      summary: 'Create a custom role',
      body: Type.Object({ key: Type.String({ pattern: '^[a-z][a-z0-9_]{0,39}$' }), name: Name, permissions: Permissions }),
      response: { 201: RoleBody, ...errors(400, 401, 403, 404, 409) },
    }),
    async (request, reply) => reply.code(201).send(await roles.createRole(deps, request.application!, request.body, actorOf(request))),
  );

  app.get(
    '/v1/organization_roles',
    route.secret({ operationId: 'listOrganizationRoles', summary: "The app's custom roles", response: { 200: ListOf('roles', RoleBody), ...errors(401, 403, 404) } }),
    async (request) => roles.listRoles(deps, request.application!),
  );

  app.patch(
    '/v1/organization_roles/:key',
    route.secret({
      operationId: 'updateOrganizationRole',
      summary: "Change a custom role's name or permissions (members holding it have them at once)",
      params: KeyParams,
      body: Type.Object({ name: Type.Optional(Name), permissions: Type.Optional(Permissions) }, { minProperties: 1 }),
      response: { 200: RoleBody, ...errors(400, 401, 403, 404) },
    }),
    async (request) => roles.updateRole(deps, request.application!, request.params.key, request.body, actorOf(request)),
  );

  app.delete(
    '/v1/organization_roles/:key',
    route.secret({
      operationId: 'deleteOrganizationRole',
      summary: 'Delete a custom role no member or pending invitation holds (409 role_in_use otherwise)',
      params: KeyParams,
      response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404, 409) },
    }),
    async (request) => deleted(roles.deleteRole(deps, request.application!, request.params.key, actorOf(request))),
  );
}
