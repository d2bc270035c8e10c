import { iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import { conflict } from '../../errors.js';
import { listEvents, type EventPosition } from '../../store/repos/events.js';
import { insertDeliveries } from '../../store/repos/webhook-deliveries.js';
import { parseInstant } from '../events/query.js';
import { toEvent } from '../events/record.js';
import { patternsFor } from './endpoint-rules.js';
import { findWebhookRow } from './endpoints.js';
import { pendingDelivery } from './deliveries.js';
import { webhookBody } from './queue.js';

// POST /v1/webhooks/{id}/replay {since}: the app's events since then that the endpoint subscribes to, queued
// for it again with their own ids (receivers de-duplicate by webhook-id).

/** The most events one replay queues: the newest, when more matched (docs/webhooks.md). */
export const MAX_REPLAY = 50_000;
const PAGE = 500;

export async function replayWebhook(deps: Pick<Deps, 'db' | 'clock'>, appId: string, webhookId: string, sinceText: string): Promise<number> {
  const endpoint = await findWebhookRow(deps, appId, webhookId);
  if (Number(endpoint.enabled) !== 1) throw conflict('the webhook is disabled: enable it first, then replay');
  const since = parseInstant(sinceText, 'since')!;
  const entries = JSON.parse(endpoint.event_types) as string[];
  const selected = new Set(entries);
  // The type filter narrows the read when '*' is not among the entries; the patterns decide either way.
  const filter = selected.has('*') ? {} : { types: entries.filter((e) => !e.endsWith('.*')), prefixes: entries.filter((e) => e.endsWith('.*')).map((e) => e.slice(0, -1)) };
  let after: EventPosition | undefined;
  let queued = 0;
  while (queued < MAX_REPLAY) {
    const rows = await listEvents(deps.db, { appId }, { ...filter, since, after }, PAGE);
    const now = iso(deps.clock.now());
    const matching = rows.filter((row) => patternsFor(row.type).some((p) => selected.has(p))).slice(0, MAX_REPLAY - queued);
    await insertDeliveries(deps.db, matching.map((row) => pendingDelivery(appId, webhookId, { event_id: row.event_id, type: row.type }, webhookBody(toEvent(row)), now)));
    queued += matching.length;
    if (rows.length < PAGE) break;
    const last = rows[rows.length - 1];
    after = { occurredAt: last.occurred_at, eventId: last.event_id };
  }
  return queued;
}
