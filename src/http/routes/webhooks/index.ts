import { Type } from '@sinclair/typebox';
import type { Deps } from '../../../deps.js';
import { listWebhookDeliveries, retryWebhookDelivery, sendTestEvent } from '../../../services/webhooks/deliveries.js';
import { createWebhook, deleteWebhook, getWebhook, listWebhooks, rotateWebhookSecret, updateWebhook } from '../../../services/webhooks/endpoints.js';
import { eventContext } from '../../event-context.js';
import type { Guards } from '../../plugins/guards.js';
import { deleted, errors, ListOf, StatusBody } from '../../schemas.js';
import type { Http } from '../../types.js';
import { routesOf } from '../../route-security.js';
import { replayWebhook } from '../../../services/webhooks/replay.js';
import { WebhookId, WebhookRecord } from '../../../services/webhooks/records.js';
import { CreateBody, CreatedWebhookBody, DeliveriesQuery, DeliveryId, DeliveryList, PatchBody, ReplayBody, RotatedBody } from './schemas.js';

// docs/webhooks.md: an app's webhook endpoints (Secret), at most 20.

const Params = Type.Object({ webhook_id: WebhookId });
const DeliveryParams = Type.Object({ webhook_id: WebhookId, delivery_id: DeliveryId });
const Queued = Type.Object({ delivery_id: DeliveryId });

export function webhookRoutes(app: Http, deps: Deps, guards: Guards): void {
  const route = routesOf(guards, 'webhooks');

  app.post(
    '/v1/webhooks',
    route.secret({ operationId: 'createWebhook', summary: 'Create a webhook endpoint (its secret is shown once)', body: CreateBody, response: { 201: CreatedWebhookBody, ...errors(400, 401, 403, 409) } }),
    async (request, reply) => reply.code(201).send(await createWebhook(deps, request.application!, request.body, eventContext(request))),
  );

  app.get(
    '/v1/webhooks',
    route.secret({ operationId: 'listWebhooks', summary: "The app's webhook endpoints", response: { 200: ListOf('webhooks', WebhookRecord), ...errors(401, 403) } }),
    async (request) => ({ webhooks: await listWebhooks(deps, request.application!.id) }),
  );

  app.get(
    '/v1/webhooks/:webhook_id',
    route.secret({ operationId: 'getWebhook', summary: 'One webhook endpoint', params: Params, response: { 200: WebhookRecord, ...errors(400, 401, 403, 404) } }),
    async (request) => getWebhook(deps, request.application!.id, request.params.webhook_id),
  );

  app.patch(
    '/v1/webhooks/:webhook_id',
    route.secret({ operationId: 'updateWebhook', summary: 'Change a webhook endpoint', params: Params, body: PatchBody, response: { 200: WebhookRecord, ...errors(400, 401, 403, 404) } }),
    async (request) => updateWebhook(deps, request.application!, request.params.webhook_id, request.body, eventContext(request)),
  );

  app.delete(
    '/v1/webhooks/:webhook_id',
    route.secret({ operationId: 'deleteWebhook', summary: 'Delete a webhook endpoint and its deliveries', params: Params, response: { 200: StatusBody('deleted'), ...errors(400, 401, 403, 404) } }),
    async (request) => deleted(deleteWebhook(deps, request.application!, request.params.webhook_id, eventContext(request))),
  );

  app.post(
    '/v1/webhooks/:webhook_id/rotate_secret',
    route.secret({ operationId: 'rotateWebhookSecret', summary: 'A new secret; the old one signs beside it for 24 hours', params: Params, response: { 200: RotatedBody, ...errors(400, 401, 403, 404, 409) } }),
    async (request) => rotateWebhookSecret(deps, request.application!, request.params.webhook_id, eventContext(request)),
  );

  app.post(
    '/v1/webhooks/:webhook_id/test',
    route.secret({ operationId: 'testWebhook', summary: 'Send a webhook.test event to this endpoint alone', params: Params, response: { 202: Queued, ...errors(400, 401, 403, 404) } }),
    async (request, reply) => reply.code(202).send({ delivery_id: await sendTestEvent(deps, request.application!, request.params.webhook_id, eventContext(request).actor) }),
  );

  app.get(
    '/v1/webhooks/:webhook_id/deliveries',
    route.secret({ operationId: 'listWebhookDeliveries', summary: "The endpoint's deliveries, newest first", params: Params, querystring: DeliveriesQuery, response: { 200: DeliveryList, ...errors(400, 401, 403, 404) } }),
    async (request) => listWebhookDeliveries(deps, request.application!.id, request.params.webhook_id, request.query),
  );

  app.post(
    '/v1/webhooks/:webhook_id/deliveries/:delivery_id/retry',
    route.secret({ operationId: 'retryWebhookDelivery', summary: 'Attempt a delivery again now (same webhook-id and body)', params: DeliveryParams, response: { 202: Queued, ...errors(400, 401, 403, 404) } }),
    async (request, reply) => {
      await retryWebhookDelivery(deps, request.application!.id, request.params.webhook_id, request.params.delivery_id);
      return reply.code(202).send({ delivery_id: request.params.delivery_id });
    },
  );

  app.post(
    '/v1/webhooks/:webhook_id/replay',
    route.secret({
      operationId: 'replayWebhook',
      summary: 'Queue every matching event since a time for this endpoint again (same webhook-ids)',
      params: Params,
      body: ReplayBody,
      response: { 202: Type.Object({ queued: Type.Integer() }), ...errors(400, 401, 403, 404, 409) },
    }),
    async (request, reply) => reply.code(202).send({ queued: await replayWebhook(deps, request.application!.id, request.params.webhook_id, request.body.since) }),
  );
}
