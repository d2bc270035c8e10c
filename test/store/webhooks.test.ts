import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { pendingDelivery } from '../../src/services/webhooks/deliveries.js';
import { createWebhook } from '../../src/services/webhooks/endpoints.js';
import { OPERATOR_CONTEXT } from '../../src/services/events/types.js';
import { queueWebhookDeliveries, type DeliverableEvent } from '../../src/services/webhooks/queue.js';
import { pageWebhookSecrets, replaceSealedWebhookSecret } from '../../src/store/repos/sealed-secrets.js';
import { claimDueDeliveries, insertDeliveries, listDeliveries, pruneFinishedDeliveries, recordAttempt, releaseDelivery } from '../../src/store/repos/webhook-deliveries.js';
import { updateEndpoint } from '../../src/store/repos/webhook-endpoints.js';
import { setDeliveryPayloads } from '../../src/store/repos/event-erasure.js';
import { openInProcess } from '../helpers/in-process.js';

// The store suite for webhooks (migration 0033), in process on the run's database: which endpoints an event
// is queued for, the lease that gives each attempt to one worker, the clean-up, and the master-key re-seal.
let deps: Deps;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-04-01T00:00:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, close } = await openInProcess(clock));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });
const hookDeps = () => ({ ...deps, clock });

async function twoApps() {
  const tenant = await createTenant(appsDeps(), 'T');
  const app = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
  const other = await createApp(appsDeps(), tenant.tenant_id, 'B', {});
  return { appId: app.app_id, otherAppId: other.app_id, tenantId: tenant.tenant_id };
}

const event = (appId: string | null, type: string, id = `evt_${Math.random().toString(36).slice(2)}aaaaaaaaaaaaaaaaaaaa`): DeliverableEvent => ({
  event_id: id,
  type,
  occurred_at: iso(now),
  app_id: appId,
  tenant_id: 'ten_x',
  actor: { type: 'system', id: null },
  user_id: null,
  data: { source: 'signup' },
  ip: null,
  user_agent: null,
});

const queuedFor = async (appId: string, eventId: string) =>
  (await deps.db.selectFrom('webhook_deliveries').select(['endpoint_id', 'payload']).where('app_id', '=', appId).where('event_id', '=', eventId).execute()).map((r) => r.endpoint_id).sort();

describe('store: webhook deliveries', () => {
  it("an event is queued, in one statement, for the app's enabled endpoints whose event_types select it; * is every type but signin.failed", async () => {
    const { appId, otherAppId, tenantId } = await twoApps();
    const url = 'https://93.184.215.14/hook';
    const all = await createWebhook(hookDeps(), { id: appId, tenantId }, { url }, OPERATOR_CONTEXT);
    const users = await createWebhook(hookDeps(), { id: appId, tenantId }, { url, event_types: ['user.*'] }, OPERATOR_CONTEXT);
    const failures = await createWebhook(hookDeps(), { id: appId, tenantId }, { url, event_types: ['signin.failed'] }, OPERATOR_CONTEXT);
    const off = await createWebhook(hookDeps(), { id: appId, tenantId }, { url, event_types: ['session.created'], enabled: false }, OPERATOR_CONTEXT);
    const nested = await createWebhook(hookDeps(), { id: appId, tenantId }, { url, event_types: ['organization.membership.*'] }, OPERATOR_CONTEXT);
    await createWebhook(hookDeps(), { id: otherAppId, tenantId }, { url }, OPERATOR_CONTEXT);
    const cases: [string, string[]][] = [
      ['user.created', [all.webhook_id, users.webhook_id]],
      ['signin.failed', [failures.webhook_id]],
      ['session.created', [all.webhook_id]],
      ['organization.membership.created', [all.webhook_id, nested.webhook_id]],
    ];
    for (const [type, expected] of cases) {
      const e = event(appId, type);
      expect(await queueWebhookDeliveries(deps.db, e, now), type).toBe(expected.length);
      expect(await queuedFor(appId, e.event_id), type).toEqual([...expected].sort());
    }
    expect(off.enabled).toBe(false);
    // A tenant-level event (no app) has no endpoint to go to.
    expect(await queueWebhookDeliveries(deps.db, event(null, 'app.created'), now)).toBe(0);
    const [row] = await deps.db.selectFrom('webhook_deliveries').selectAll().where('endpoint_id', '=', users.webhook_id).execute();
    expect(JSON.parse(row.payload)).toEqual({ type: 'user.created', timestamp: iso(now), data: expect.objectContaining({ source: 'signup', event_id: row.event_id, app_id: appId }) });
  });

  it('a lease gives each due delivery to one holder; it runs out, a release makes it due again, and only the holder records the attempt', async () => {
    const { appId, tenantId } = await twoApps();
    const hook = await createWebhook(hookDeps(), { id: appId, tenantId }, { url: 'https://93.184.215.14/lease' }, OPERATOR_CONTEXT);
    // Due before the deliveries the other cases queued, so the claims (oldest first) take these.
    const due = iso(addSeconds(now, -3600));
    const rows = Array.from({ length: 6 }, (_, i) => pendingDelivery(appId, hook.webhook_id, { event_id: `evt_lease${i}aaaaaaaaaaaaaaaaaaaa`, type: 'webhook.test' }, '{}', due));
    for (const row of rows) await insertDeliveries(deps.db, [row]);
    const lease = { now: iso(now), leaseUntil: iso(addSeconds(now, 20)), limit: 4, skipLocked: deps.store.dialect === 'postgres' };
    const claim = (holder: string, at = lease) => deps.db.transaction().execute((trx) => claimDueDeliveries(trx, { ...at, holder }));
    const [a, b] = await Promise.all([claim('node-a'), claim('node-b')]);
    const mine = (list: { id: string }[]) => list.map((r) => r.id).filter((id) => rows.some((row) => row.id === id));
    expect(mine(a).length + mine(b).length).toBe(6);
    expect(new Set([...mine(a), ...mine(b)]).size).toBe(6);
    expect(mine(await claim('node-c'))).toEqual([]);
    const taken = a.find((r) => rows.some((row) => row.id === r.id))!;
    const outcome = { attempts: 1, now: iso(now), statusCode: 200, error: null, nextAttemptAt: null, status: 'succeeded' as const };
    expect(await recordAttempt(deps.db, taken.id, 'node-b', outcome)).toBe(false);
    await releaseDelivery(deps.db, taken.id, 'node-a');
    expect(mine(await claim('node-c'))).toEqual([taken.id]);
    expect(await recordAttempt(deps.db, taken.id, 'node-c', outcome)).toBe(true);
    // Once the leases run out, the rest go to whoever claims next.
    const later = { ...lease, now: iso(addSeconds(now, 21)), leaseUntil: iso(addSeconds(now, 41)), limit: 10 };
    expect(mine(await claim('node-d', later))).toHaveLength(5);
    const listed = await listDeliveries(deps.db, appId, hook.webhook_id, { status: 'succeeded', limit: 10 });
    expect(listed.map((r) => r.id)).toEqual([taken.id]);
  });

  it("a user's erasure writes the body of each delivery of the event again, in its app only", async () => {
    const { appId, otherAppId, tenantId } = await twoApps();
    const hook = await createWebhook(hookDeps(), { id: appId, tenantId }, { url: 'https://93.184.215.14/erase' }, OPERATOR_CONTEXT);
    const eventId = 'evt_erase0aaaaaaaaaaaaaaaaaaaa';
    const row = pendingDelivery(appId, hook.webhook_id, { event_id: eventId, type: 'user.updated' }, '{"email":"someone@example.com"}', iso(addSeconds(now, 3600)));
    await insertDeliveries(deps.db, [row]);
    const payload = async () => (await deps.db.selectFrom('webhook_deliveries').select('payload').where('id', '=', row.id).executeTakeFirstOrThrow()).payload;
    await setDeliveryPayloads(deps.db, otherAppId, eventId, '{"email":null}');
    expect(await payload()).toBe('{"email":"someone@example.com"}');
    await setDeliveryPayloads(deps.db, appId, eventId, '{"email":null}');
    expect(await payload()).toBe('{"email":null}');
  });

  it('the clean-up deletes finished deliveries queued before the bound, never a pending one', async () => {
    const { appId, tenantId } = await twoApps();
    const hook = await createWebhook(hookDeps(), { id: appId, tenantId }, { url: 'https://93.184.215.14/prune' }, OPERATOR_CONTEXT);
    const old = iso(addSeconds(now, -40 * 86_400));
    const done = { ...pendingDelivery(appId, hook.webhook_id, { event_id: 'evt_doneaaaaaaaaaaaaaaaaaaaa', type: 'user.created' }, '{}', old), status: 'succeeded' as const, next_attempt_at: null };
    const waiting = pendingDelivery(appId, hook.webhook_id, { event_id: 'evt_waitaaaaaaaaaaaaaaaaaaaa', type: 'user.created' }, '{}', old);
    await insertDeliveries(deps.db, [done]);
    await insertDeliveries(deps.db, [waiting]);
    expect(await pruneFinishedDeliveries(deps.db, iso(addSeconds(now, -30 * 86_400)), 25)).toBeGreaterThanOrEqual(1);
    const left = (await listDeliveries(deps.db, appId, hook.webhook_id, { limit: 10 })).map((r) => r.id);
    expect(left).toContain(waiting.id);
    expect(left).not.toContain(done.id);
  });

  it("a master-key rotation's page lists each endpoint's secret and previous secret; each is replaced only while it holds the value read", async () => {
    const { appId, tenantId } = await twoApps();
    const hook = await createWebhook(hookDeps(), { id: appId, tenantId }, { url: 'https://93.184.215.14/seal' }, OPERATOR_CONTEXT);
    await updateEndpoint(deps.db, appId, hook.webhook_id, { secret_sealed: 'sealed-now', previous_secret_sealed: 'sealed-before' });
    const page = await pageWebhookSecrets(deps.db, undefined, 1000);
    expect(page.find((r) => r.id === hook.webhook_id)).toEqual({ id: hook.webhook_id, secret_sealed: 'sealed-now', previous_secret_sealed: 'sealed-before' });
    expect((await pageWebhookSecrets(deps.db, `${hook.webhook_id} previous`, 1000)).some((r) => r.id === hook.webhook_id)).toBe(false);
    expect(await replaceSealedWebhookSecret(deps.db, `${hook.webhook_id} current`, 'sealed-other', 'x')).toBe(false);
    expect(await replaceSealedWebhookSecret(deps.db, `${hook.webhook_id} current`, 'sealed-now', 'sealed-new')).toBe(true);
    expect(await replaceSealedWebhookSecret(deps.db, `${hook.webhook_id} previous`, 'sealed-before', 'sealed-new-before')).toBe(true);
    const [row] = (await pageWebhookSecrets(deps.db, undefined, 1000)).filter((r) => r.id === hook.webhook_id);
    expect(row).toMatchObject({ secret_sealed: 'sealed-new', previous_secret_sealed: 'sealed-new-before' });
    now = addSeconds(now, 1);
  });
});
