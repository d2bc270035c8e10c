import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { AppRecord } from '../../../services/apps/records.js';
import { createAppIn, deleteAppOf, listAppsOf, rotateSecretOf, rotateSigningKeyOf, showAppTo, updateAppOf } from '../../../services/management/apps.js';
import { eventContext } from '../../event-context.js';
import type { Guards } from '../../plugins/guards.js';
import { deleted, errors, SafeInteger, StatusBody, Timestamp } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { AppSettingsFields, settingsOf } from './schemas.js';
import { TenantParams, tenantListRoute } from './tenant-list.js';

// docs/management.md: a tenant's apps and their keys (Console), the services of `gatehouse app ...`.

const Id = Type.String({ minLength: 1, maxLength: 64 });
const AppParams = Type.Object({ app_id: Id });
const Name = Type.String({ minLength: 1, maxLength: 200 });

export function managementAppRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'management');

  tenantListRoute(app, deps, route, { name: 'apps', item: AppRecord, operationId: 'listTenantApps', summary: "The tenant's apps" }, listAppsOf);

  app.post(
    '/v1/tenants/:tenant_id/apps',
    route.console({
      operationId: 'createTenantApp',
      summary: 'Create an app: its publishable key and its secret key (shown once), as gatehouse app create --json',
      params: TenantParams,
      body: Type.Object({ name: Name, ...AppSettingsFields }),
      response: { 201: AppRecord, ...errors(400, 401, 403, 404, 409) },
    }),
    async (request, reply) => {
      const { name, ...settings } = settingsOf(request.body);
      return reply.code(201).send(await createAppIn(deps, request.consoleCaller!, request.params.tenant_id, name!, settings, eventContext(request)));
    },
  );

  app.get(
    '/v1/apps/:app_id',
    route.console({ operationId: 'getApp', summary: 'An app and its settings', params: AppParams, response: { 200: AppRecord, ...errors(401, 404) } }),
    async (request) => showAppTo(deps, request.consoleCaller!, request.params.app_id),
  );

  app.patch(
    '/v1/apps/:app_id',
    route.console({
      operationId: 'updateApp',
      summary: "Change an app's settings",
      params: AppParams,
      body: Type.Object({ name: Type.Optional(Name), ...AppSettingsFields }, { minProperties: 1 }),
      response: { 200: AppRecord, ...errors(400, 401, 403, 404, 409) },
    }),
    async (request) => updateAppOf(deps, request.consoleCaller!, request.params.app_id, settingsOf(request.body), eventContext(request)),
  );

  app.delete(
    '/v1/apps/:app_id',
    route.console({ operationId: 'deleteApp', summary: 'Delete an app and everything of it', params: AppParams, response: { 200: StatusBody('deleted'), ...errors(401, 403, 404) } }),
    async (request) => deleted(deleteAppOf(deps, request.consoleCaller!, request.params.app_id, eventContext(request))),
  );

  app.post(
    '/v1/apps/:app_id/secret_keys',
    route.console({
      operationId: 'rotateSecretKey',
      summary: 'A new secret key (shown once); the old one dies now or after keep_old_for_seconds',
      params: AppParams,
      body: Type.Optional(Type.Object({ keep_old_for_seconds: Type.Optional(SafeInteger({ minimum: 0, maximum: 30 * 86_400 })) })),
      response: { 201: Type.Object({ secret_key: Type.String(), old_key_expires_at: Type.Union([Timestamp, Type.Null()]) }), ...errors(400, 401, 403, 404) },
    }),
    async (request, reply) => reply.code(201).send(await rotateSecretOf(deps, request.consoleCaller!, request.params.app_id, request.body?.keep_old_for_seconds ?? 0, eventContext(request))),
  );

  app.post(
    '/v1/apps/:app_id/signing_keys',
    route.console({ operationId: 'rotateSigningKey', summary: 'A new signing key, used at once', params: AppParams, response: { 201: Type.Object({ kid: Type.String() }), ...errors(401, 403, 404) } }),
    async (request, reply) => reply.code(201).send(await rotateSigningKeyOf(deps, request.consoleCaller!, request.params.app_id, eventContext(request))),
  );
}
