import { addSeconds, iso } from '../../clock.js';
import { open, seal } from '../../crypto/envelope.js';
import { randomBase62 } from '../../crypto/ids.js';
import type { Deps } from '../../deps.js';
import { conflict, notFound } from '../../errors.js';
import * as deliveries from '../../store/repos/webhook-deliveries.js';
import * as endpoints from '../../store/repos/webhook-endpoints.js';
import type { WebhookEndpointRow } from '../../store/types.js';
import { inTransaction } from '../../store/transaction.js';
import type { Db } from '../../store/db.js';
import { eventOf, type EventContext } from '../events/types.js';
import { recordEvent } from '../events/record.js';
import { checkEndpointUrl, checkEventTypes, MAX_ENDPOINTS_PER_APP } from './endpoint-rules.js';
import type { Webhook } from './records.js';
import { newWebhookSecret } from './signature.js';

export type { Webhook };

export type EndpointDeps = Pick<Deps, 'db' | 'clock' | 'config' | 'masterKey' | 'masterKeys'>;

/** How long the secret a rotation replaced keeps signing beside the new one. */
export const PREVIOUS_SECRET_SECONDS = 24 * 3600;

/** Binds a sealed secret to its endpoint and its role: a ciphertext moved to another row or column does not open. */
export const webhookSecretBinding = (id: string) => `webhook_endpoints:${id}`;
export const previousWebhookSecretBinding = (id: string) => `webhook_endpoints:${id}:previous`;

const newWebhookId = () => `wh_${randomBase62(24)}`;

/** The app a webhook belongs to, as its events name it. */
export interface WebhookApp {
  id: string;
  tenantId: string;
}

/** Records webhook.created|updated|deleted in `trx`, the transaction of the change. */
function recordWebhookEvent(trx: Db, app: WebhookApp, context: EventContext, type: string, data: Record<string, unknown>, now: Date) {
  return recordEvent(trx, eventOf(context, { type, tenantId: app.tenantId, appId: app.id, userId: null, data }), now);
}

function toWebhook(row: WebhookEndpointRow, stats = { succeeded: 0, failed: 0 }): Webhook {
  return {
    webhook_id: row.id,
    url: row.url,
    event_types: JSON.parse(row.event_types) as string[],
    description: row.description,
    enabled: Number(row.enabled) === 1,
    disabled_reason: row.disabled_reason,
    created_at: row.created_at,
    updated_at: row.updated_at,
    stats: { succeeded_24h: stats.succeeded, failed_24h: stats.failed },
  };
}

async function withStats(deps: EndpointDeps, appId: string, rows: WebhookEndpointRow[]): Promise<Webhook[]> {
  const since = iso(addSeconds(deps.clock.now(), -86_400));
  const counts = await deliveries.countRecentOutcomes(deps.db, appId, rows.map((r) => r.id), since);
  return rows.map((row) => toWebhook(row, counts.get(row.id)));
}

/** The secrets that sign an attempt now: the endpoint's, then the one a rotation replaced while it lasts. */
export function signingSecrets(deps: Pick<Deps, 'masterKeys'>, row: WebhookEndpointRow, now: Date): string[] {
  const secrets = [open(deps.masterKeys, row.secret_sealed, webhookSecretBinding(row.id))];
  if (row.previous_secret_sealed && row.previous_expires_at && row.previous_expires_at > iso(now)) {
    secrets.push(open(deps.masterKeys, row.previous_secret_sealed, previousWebhookSecretBinding(row.id)));
  }
  return secrets;
}

export interface NewWebhook {
  url: string;
  event_types?: string[];
  description?: string;
  enabled?: boolean;
}

/** Creates an endpoint with a new secret (answered here only); 409 `webhook_limit_reached` past 20 per app. */
export async function createWebhook(deps: EndpointDeps, app: WebhookApp, input: NewWebhook, context: EventContext): Promise<Webhook & { secret: string }> {
  const appId = app.id;
  const url = await checkEndpointUrl(input.url, deps.config.webhookAllowPrivate);
  const types = checkEventTypes(input.event_types ?? ['*']);
  const secret = newWebhookSecret();
  const id = newWebhookId();
  const at = deps.clock.now();
  const now = iso(at);
  const row: WebhookEndpointRow = {
    id,
    app_id: appId,
    url,
    event_types: JSON.stringify(types),
    description: input.description ?? '',
    enabled: input.enabled === false ? 0 : 1,
    disabled_reason: null,
    secret_sealed: seal(deps.masterKey, secret, webhookSecretBinding(id)),
    previous_secret_sealed: null,
    previous_expires_at: null,
    failing_since: null,
    created_at: now,
    updated_at: now,
  };
  await inTransaction(deps.db, async (trx) => {
    if (!(await endpoints.reserveEndpointSlot(trx, appId, MAX_ENDPOINTS_PER_APP))) {
      throw conflict(`an app has at most ${MAX_ENDPOINTS_PER_APP} webhook endpoints`, 'webhook_limit_reached');
    }
    await endpoints.insertEndpoint(trx, row, types);
    await recordWebhookEvent(trx, app, context, 'webhook.created', { webhook_id: id, url, event_types: types }, at);
  });
  return { ...toWebhook(row), secret };
}

export async function listWebhooks(deps: EndpointDeps, appId: string): Promise<Webhook[]> {
  return withStats(deps, appId, await endpoints.listEndpoints(deps.db, appId));
}

/** The app's endpoint row; 404 for an unknown id or another app's. */
export async function findWebhookRow(deps: Pick<Deps, 'db'>, appId: string, id: string): Promise<WebhookEndpointRow> {
  const row = await endpoints.findEndpoint(deps.db, appId, id);
  if (!row) throw notFound('webhook not found');
  return row;
}

export async function getWebhook(deps: EndpointDeps, appId: string, id: string): Promise<Webhook> {
  const [webhook] = await withStats(deps, appId, [await findWebhookRow(deps, appId, id)]);
  return webhook;
}

/** Changes the fields given; enabling clears disabled_reason and the failure clock. */
export async function updateWebhook(deps: EndpointDeps, app: WebhookApp, id: string, input: Partial<NewWebhook>, context: EventContext): Promise<Webhook> {
  const appId = app.id;
  const url = input.url === undefined ? undefined : await checkEndpointUrl(input.url, deps.config.webhookAllowPrivate);
  const types = input.event_types === undefined ? undefined : checkEventTypes(input.event_types);
  const at = deps.clock.now();
  const changes: Parameters<typeof endpoints.updateEndpoint>[3] = { updated_at: iso(at) };
  if (url !== undefined) changes.url = url;
  if (types !== undefined) changes.event_types = JSON.stringify(types);
  if (input.description !== undefined) changes.description = input.description;
  if (input.enabled !== undefined) {
    changes.enabled = input.enabled ? 1 : 0;
    changes.disabled_reason = input.enabled ? null : 'disabled by the app';
    if (input.enabled) changes.failing_since = null;
  }
  const row = await inTransaction(deps.db, async (trx) => {
    const updated = await endpoints.updateEndpoint(trx, appId, id, changes);
    if (!updated) throw notFound('webhook not found');
    if (types !== undefined) await endpoints.replaceEndpointPatterns(trx, appId, id, types);
    const changed = (['url', 'event_types', 'description', 'enabled'] as const).filter((field) => input[field] !== undefined);
    await recordWebhookEvent(trx, app, context, 'webhook.updated', { webhook_id: id, changed }, at);
    return updated;
  });
  const [webhook] = await withStats(deps, appId, [row]);
  return webhook;
}

/** Deletes the endpoint, its pending and finished deliveries, and gives its slot back. */
export async function deleteWebhook(deps: EndpointDeps, app: WebhookApp, id: string, context: EventContext): Promise<void> {
  await inTransaction(deps.db, async (trx) => {
    if (!(await endpoints.deleteEndpoint(trx, app.id, id))) throw notFound('webhook not found');
    await endpoints.releaseEndpointSlot(trx, app.id);
    await recordWebhookEvent(trx, app, context, 'webhook.deleted', { webhook_id: id }, deps.clock.now());
  });
}

/** A new secret, answered here only; the replaced one signs beside it for PREVIOUS_SECRET_SECONDS. */
export async function rotateWebhookSecret(deps: EndpointDeps, app: WebhookApp, id: string, context: EventContext): Promise<{ secret: string; previous_expires_at: string }> {
  const appId = app.id;
  const row = await findWebhookRow(deps, appId, id);
  const current = open(deps.masterKeys, row.secret_sealed, webhookSecretBinding(id));
  const secret = newWebhookSecret();
  const now = deps.clock.now();
  const previousExpiresAt = iso(addSeconds(now, PREVIOUS_SECRET_SECONDS));
  await inTransaction(deps.db, async (trx) => {
    const replaced = await endpoints.replaceEndpointSecret(trx, appId, id, row.secret_sealed, {
      secret_sealed: seal(deps.masterKey, secret, webhookSecretBinding(id)),
      previous_secret_sealed: seal(deps.masterKey, current, previousWebhookSecretBinding(id)),
      previous_expires_at: previousExpiresAt,
      updated_at: iso(now),
    });
    // Another rotation (or a deletion) came first: this secret would sign nothing.
    if (!replaced) throw conflict('the secret was rotated or the webhook deleted meanwhile; read it and try again');
    await recordWebhookEvent(trx, app, context, 'webhook.updated', { webhook_id: id, changed: ['secret'] }, now);
  });
  return { secret, previous_expires_at: previousExpiresAt };
}
