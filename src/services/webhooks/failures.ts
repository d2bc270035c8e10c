import { addSeconds, iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import * as deliveries from '../../store/repos/webhook-deliveries.js';
import { disableEndpoint, markEndpointFailing } from '../../store/repos/webhook-endpoints.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../store/types.js';
import { inTransaction } from '../../store/transaction.js';
import type { AttemptResult } from './sender.js';
import type { Db } from '../../store/db.js';
import { findApplication } from '../../store/repos/applications.js';
import { recordEvent } from '../events/record.js';
import { eventOf, SYSTEM_CONTEXT } from '../events/types.js';

// A failed attempt: retried after the next delay of WEBHOOK_RETRY_SCHEDULE or failed for good; a 410 disables
// the endpoint at once, and failures for WEBHOOK_DISABLE_AFTER_SECONDS disable it too.

export type FailureDeps = Pick<Deps, 'db' | 'config' | 'log'>;

/** When the delivery that has made `attempts` attempts is tried next, or null: it has failed. */
export function nextAttemptAt(schedule: readonly number[], attempts: number, now: Date): string | null {
  const delay = schedule[attempts - 1];
  return delay === undefined ? null : iso(addSeconds(now, delay));
}

/**
 * Records a failed attempt, and disables the endpoint on a 410 or once its attempts have all failed for
 * WEBHOOK_DISABLE_AFTER_SECONDS, in one transaction: the endpoint is never seen enabled beside the attempt that
 * disabled it. The disabling write is conditional, so concurrent failures disable it once. Answers whether
 * the delivery is retried.
 */
export async function recordFailedAttempt(
  deps: FailureDeps,
  holder: string,
  row: WebhookDeliveryRow,
  endpoint: WebhookEndpointRow,
  attempts: number,
  result: AttemptResult,
  now: Date,
): Promise<boolean> {
  const gone = result.statusCode === 410;
  const next = gone ? null : nextAttemptAt(deps.config.webhookRetrySchedule, attempts, now);
  const limit = deps.config.webhookDisableAfterSeconds;
  const disabled = await inTransaction(deps.db, async (trx) => {
    await deliveries.recordAttempt(trx, row.id, holder, {
      attempts,
      now: iso(now),
      statusCode: result.statusCode,
      error: result.error,
      nextAttemptAt: next,
      status: next === null ? 'failed' : 'pending',
    });
    if (gone) return disableWith(trx, endpoint, 'the endpoint answered 410 Gone', now);
    const failingSince = await markEndpointFailing(trx, endpoint.id, iso(now));
    if (failingSince && iso(addSeconds(new Date(failingSince), limit)) <= iso(now)) return disableWith(trx, endpoint, `every delivery failed for ${limit} seconds`, now);
    return undefined;
  });
  if (disabled) {
    deps.log.warn({ delivery_id: row.id, app_id: row.app_id, webhook_id: endpoint.id, attempts, status_code: result.statusCode, code: 'webhook_disabled', reason: disabled }, 'webhook endpoint disabled');
  }
  return next !== null;
}

/** Disables the endpoint if it is still enabled; answers the reason when this call did. */
async function disableWith(trx: Db, endpoint: WebhookEndpointRow, reason: string, now: Date): Promise<string | undefined> {
  const row = await disableEndpoint(trx, endpoint.app_id, endpoint.id, reason, iso(now));
  if (!row) return undefined;
  const app = await findApplication(trx, endpoint.app_id);
  if (app) await recordEvent(trx, eventOf(SYSTEM_CONTEXT, { type: 'webhook.disabled', tenantId: app.tenantId, appId: app.id, userId: null, data: { webhook_id: endpoint.id, reason } }), now);
  return reason;
}
