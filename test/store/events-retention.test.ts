import { describe, expect, it } from 'vitest';
import { addSeconds, type Clock } from '../../src/clock.js';
import { createApp, createTenant } from '../../src/services/apps/apps.js';
import { eventIdFloor, recordEvent } from '../../src/services/events/record.js';
import { pruneOldEvents } from '../../src/services/events/retention.js';
import { OPERATOR_CONTEXT, type NewEvent } from '../../src/services/events/types.js';
import { createWebhook } from '../../src/services/webhooks/endpoints.js';
import { countEventsByDay } from '../../src/store/repos/event-counts.js';
import { deleteEventBatchBefore, deleteEventCountsBefore } from '../../src/store/repos/event-retention.js';
import { useInProcess } from '../helpers/in-process.js';

// Retention (EVENTS_RETENTION_DAYS, docs/events.md) on the run's database, on a moved clock: old events go
// in bounded batches, oldest first, with their finished deliveries and their days' counts; nothing younger.
// The apps and the endpoint are made after the cut-off (their own events are young).
let now = new Date('2026-04-03T13:00:00.000Z');
const clock: Clock = { now: () => now };
const { deps, appsDeps } = useInProcess(clock);
const event = (tenantId: string, appId: string | null, type = 'user.updated'): NewEvent => ({ tenantId, appId, type, actor: { type: 'system', id: null }, userId: null, data: {}, ip: null, userAgent: null });
const eventIds = async (appId: string) => (await deps.db.selectFrom('events').select('event_id').where('app_id', '=', appId).orderBy('event_id').execute()).map((r) => r.event_id);
const deliveriesOf = async (appId: string) => (await deps.db.selectFrom('webhook_deliveries').select(['event_id', 'next_attempt_at']).where('app_id', '=', appId).orderBy('event_id').execute());

describe('store: events retention', () => {
  it('old events go in batches of at most the bound, oldest first, with their finished deliveries and old days; nothing younger', async () => {
    const tenant = await createTenant(appsDeps(), 'T');
    const tenantId = tenant.tenant_id;
    const appId = (await createApp(appsDeps(), tenantId, 'A', {})).app_id;
    const otherAppId = (await createApp(appsDeps(), tenantId, 'B', {})).app_id;
    await createWebhook({ ...deps, clock }, { id: appId, tenantId }, { url: 'https://93.184.215.14/hook' }, OPERATOR_CONTEXT);
    // Seven events a day and more before the cut-off of 90 days (measured from the clock moved below),
    // one an hour before it, two a minute after it; another app's old one and a tenant's own old one.
    const cutoff = new Date('2026-04-03T12:00:00.000Z');
    const old: string[] = [];
    for (let i = 0; i < 6; i++) old.push(await recordEvent(deps.db, event(tenantId, appId), addSeconds(cutoff, -86_400 - 60 * (6 - i))));
    old.push(await recordEvent(deps.db, event(tenantId, appId, 'session.created'), addSeconds(cutoff, -3600)));
    const young = [await recordEvent(deps.db, event(tenantId, appId), addSeconds(cutoff, 60)), await recordEvent(deps.db, event(tenantId, appId), addSeconds(cutoff, 61))];
    const otherOld = await recordEvent(deps.db, event(tenantId, otherAppId), addSeconds(cutoff, -86_400));
    const tenantOld = await recordEvent(deps.db, event(tenantId, null, 'tenant.updated'), addSeconds(cutoff, -86_400));
    expect(await eventIds(appId)).toEqual(expect.arrayContaining([...old, ...young]));
    // Every delivery finished but the oldest event's, still queued.
    await deps.db.updateTable('webhook_deliveries').set({ next_attempt_at: null, status: 'succeeded' }).where('app_id', '=', appId).where('event_id', '!=', old[0]).execute();
    expect((await deliveriesOf(appId)).filter((d) => [...old, ...young].includes(d.event_id))).toHaveLength(9);

    now = addSeconds(cutoff, 90 * 86_400);
    const floor = eventIdFloor(cutoff);
    // One batch: at most its bound, the oldest ids.
    const first = await deps.db.transaction().execute((trx) => deleteEventBatchBefore(trx, floor, 3));
    expect(first).toEqual({ events: 3, deliveries: 2 });
    const left = await eventIds(appId);
    expect(left).not.toContain(old[1]);
    expect(left).toEqual(expect.arrayContaining([...old.slice(3), ...young]));
    // A batch of counters: at most its bound, the cut-off's own day untouched.
    expect(await deleteEventCountsBefore(deps.db, '2026-04-03', 1)).toBe(1);

    // A whole pass in batches of 2: the rest of the old ones, on both apps and the tenant's own.
    const report = await pruneOldEvents({ ...deps, clock, config: { ...deps.config, eventsRetentionDays: 90 } }, 2);
    expect(report).toMatchObject({ ran: true, deliveries: 4 });
    expect(report.events).toBeGreaterThanOrEqual(6);
    expect(report.event_counts).toBeGreaterThan(0);
    const kept = await eventIds(appId);
    expect(kept.filter((id) => id < floor)).toEqual([]);
    expect(kept).toEqual(expect.arrayContaining(young));
    expect(await eventIds(otherAppId)).not.toContain(otherOld);
    expect(await deps.db.selectFrom('events').select('event_id').where('event_id', '=', tenantOld).executeTakeFirst()).toBeUndefined();
    // The queued delivery of a pruned event stays (it carries its own body) until it finishes; the young ones' stay.
    const deliveries = await deliveriesOf(appId);
    expect(deliveries.filter((d) => d.event_id === old[0])).toHaveLength(1);
    expect(deliveries.filter((d) => young.includes(d.event_id))).toHaveLength(2);
    expect(deliveries.filter((d) => old.slice(1).includes(d.event_id))).toEqual([]);
    // Counts: the days wholly before the cut-off's go; the cut-off's own day and later stay.
    expect(await countEventsByDay(deps.db, appId, { fromDay: '2026-04-01', toDay: '2026-04-02' })).toEqual([]);
    expect(await countEventsByDay(deps.db, appId, { fromDay: '2026-04-03', toDay: '2026-04-03' })).toEqual([
      { day: '2026-04-03', type: 'session.created', count: 1 },
      { day: '2026-04-03', type: 'user.updated', count: 2 },
      { day: '2026-04-03', type: 'webhook.created', count: 1 },
    ]);
    // A second pass finds nothing.
    expect(await pruneOldEvents({ ...deps, clock, config: { ...deps.config, eventsRetentionDays: 90 } }, 2)).toEqual({ ran: true, events: 0, deliveries: 0, event_counts: 0 });
  });
});
