import { addSeconds, iso } from '../../clock.js';
import type { Deps } from '../../deps.js';
import * as deliveries from '../../store/repos/webhook-deliveries.js';
import { disableEndpoint, markEndpointFailing } from '../../store/repos/webhook-endpoints.js';
import type { WebhookDeliveryRow, WebhookEndpointRow } from '../../store/types.js';
import { inTransaction } from '../../store/transaction.js';
import type { AttemptResult } from './sender.js';

// A failed attempt: retried after the next delay of WEBHOOK_RETRY_SCHEDULE or failed for good; a 410 disables
// the endpoint at once, and failures for WEBHOOK_DISABLE_AFTER_SECONDS disable it too.

export type FailureDeps = Pick<Deps, 'db' | 'config' | 'log'>;

/** When the delivery that has made `attempts` attempts is tried next, or null: it has failed. */
export function nextAttemptAt(schedule: readonly number[], attempts: number, now: Date): string | null {
  const delay = schedule[attempts - 1];
  return delay === undefined ? null : iso(addSeconds(now, delay));
}

/** Disables the endpoint (once, however many attempts fail together) and answers whether this call did. */
async function disable(deps: FailureDeps, endpoint: WebhookEndpointRow, reason: string, now: Date): Promise<boolean> {
  return inTransaction(deps.db, async (trx) => {
    const disabled = await disableEndpoint(trx, endpoint.app_id, endpoint.id, reason, iso(now));
    return disabled !== undefined;
  });
}

export async function recordFailedAttempt(
  deps: FailureDeps,
  holder: string,
  row: WebhookDeliveryRow,
  endpoint: WebhookEndpointRow,
  attempts: number,
  result: AttemptResult,
  now: Date,
): Promise<void> {
  const gone = result.statusCode === 410;
  const next = gone ? null : nextAttemptAt(deps.config.webhookRetrySchedule, attempts, now);
  await deliveries.recordAttempt(deps.db, row.id, holder, {
    attempts,
    now: iso(now),
    statusCode: result.statusCode,
    error: result.error,
    nextAttemptAt: next,
    status: next === null ? 'failed' : 'pending',
  });
  const fields = { delivery_id: row.id, app_id: row.app_id, webhook_id: endpoint.id, attempts, status_code: result.statusCode };
  if (gone) {
    if (await disable(deps, endpoint, 'the endpoint answered 410 Gone', now)) deps.log.warn({ ...fields, code: 'webhook_disabled' }, 'webhook endpoint answered 410: disabled');
    return;
  }
  const failingSince = await markEndpointFailing(deps.db, endpoint.id, iso(now));
  const limit = deps.config.webhookDisableAfterSeconds;
  if (failingSince && iso(addSeconds(new Date(failingSince), limit)) <= iso(now)) {
    if (await disable(deps, endpoint, `every delivery failed for ${limit} seconds`, now)) deps.log.warn({ ...fields, code: 'webhook_disabled' }, 'webhook endpoint failing too long: disabled');
  }
}
