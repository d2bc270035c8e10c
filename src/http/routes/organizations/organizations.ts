import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { forbidden } from '../../../errors.js';
import * as service from '../../../services/organizations/organizations.js';
import type { Guards } from '../../plugins/guards.js';
import { deleted, errors, PageOf, StatusBody, Uuid } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { actorOf, Name, NextCursor, OrganizationBody, OrgMetadata, OrgParams, PageQuery, Slug } from './schemas.js';

// docs/organizations.md: the organisations themselves. Routes a member reaches through Publishable +
// Session and the server through the secret key share their paths; the guard says which asks.

const OrganizationList = PageOf('organizations', OrganizationBody, NextCursor);

export function organizationRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'organizations');

  app.post(
    '/v1/organizations',
    route.secretOrSession({
      operationId: 'createOrganization',
      summary: 'Create an organisation: a user becomes its owner (org_creation users); the server may name an owner',
      body: Type.Object({
        name: Name,
        slug: Type.Optional(Slug),
        owner_user_id: Type.Optional(Uuid),
        metadata: Type.Optional(OrgMetadata),
      }),
      response: { 201: OrganizationBody, ...errors(400, 401, 403, 404, 409) },
    }),
    async (request, reply) => {
      const actor = actorOf(request);
      const { name, slug, owner_user_id, metadata } = request.body;
      if (actor.type === 'user' && (owner_user_id !== undefined || metadata !== undefined)) throw forbidden('owner_user_id and metadata are for the secret key');
      const created = await service.createOrganization(deps, request.application!, actor, { name, slug, ownerUserId: owner_user_id, metadata });
      return reply.code(201).send(created);
    },
  );

  app.get(
    '/v1/organizations',
    route.secret({
      operationId: 'listOrganizations',
      summary: "The app's organisations, a page at a time",
      querystring: Type.Intersect([PageQuery, Type.Object({ slug: Type.Optional(Slug) })]),
      response: { 200: OrganizationList, ...errors(400, 401, 403, 404) },
    }),
    async (request) => service.listOrganizations(deps, request.application!, request.query),
  );

  app.get(
    '/v1/me/organizations',
    route.session({
      operationId: 'listMyOrganizations',
      summary: "The signed-in user's organisations, with their role in each",
      querystring: PageQuery,
      response: { 200: OrganizationList, ...errors(400, 401, 403, 404) },
    }),
    async (request) => service.listUserOrganizations(deps, request.application!, request.session!.userId, request.query),
  );

  app.get(
    '/v1/users/:user_id/organizations',
    route.secret({
      operationId: 'listUserOrganizations',
      summary: "A user's organisations, with their role in each",
      params: Type.Object({ user_id: Uuid }),
      querystring: PageQuery,
      response: { 200: OrganizationList, ...errors(400, 401, 403, 404) },
    }),
    async (request) => service.listUserOrganizations(deps, request.application!, request.params.user_id, request.query, true),
  );

  app.get(
    '/v1/organizations/:organization_id',
    route.secretOrSession({
      operationId: 'getOrganization',
      summary: 'One organisation (a member, or the server)',
      params: OrgParams,
      response: { 200: OrganizationBody, ...errors(400, 401, 403, 404) },
    }),
    async (request) => service.getOrganization(deps, request.application!, actorOf(request), request.params.organization_id),
  );

  app.patch(
    '/v1/organizations/:organization_id',
    route.secretOrSession({
      operationId: 'updateOrganization',
      summary: 'Change name or slug (org:update); metadata: the server only',
      params: OrgParams,
      body: Type.Object({ name: Type.Optional(Name), slug: Type.Optional(Slug), metadata: Type.Optional(OrgMetadata) }, { minProperties: 1 }),
      response: { 200: OrganizationBody, ...errors(400, 401, 403, 404, 409) },
    }),
    async (request) => service.updateOrganization(deps, request.application!, actorOf(request), request.params.organization_id, request.body),
  );

  app.delete(
    '/v1/organizations/:organization_id',
    route.secretOrSession({
      operationId: 'deleteOrganization',
      summary: 'Delete an organisation (org:delete): refused at once, its members, invitations, rows and objects purged in batches',
      params: OrgParams,
      response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) },
    }),
    async (request) => deleted(service.deleteOrganization(deps, request.application!, actorOf(request), request.params.organization_id)),
  );
}
