import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { recordEvent } from '../../src/services/events/record.js';
import type { NewEvent } from '../../src/services/events/types.js';
import { countEventsByDay } from '../../src/store/repos/event-counts.js';
import { findEvent, listEvents } from '../../src/store/repos/events.js';
import { openInProcess } from '../helpers/in-process.js';

// The store suite for events (store/repos/events.ts) on the run's database: the event and its day's count
// written together, pages by app, by app and user, by tenant (app_id null), and the scoping of each read.
let deps: Deps;
let close: (() => Promise<void>) | undefined;
const now = new Date('2026-04-01T12:00:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, close } = await openInProcess(clock));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });

async function twoApps() {
  const tenant = await createTenant(appsDeps(), 'T');
  const a = await createApp(appsDeps(), tenant.tenant_id, 'A', {});
  const b = await createApp(appsDeps(), tenant.tenant_id, 'B', {});
  return { tenantId: tenant.tenant_id, appId: a.app_id, otherAppId: b.app_id };
}

const event = (fields: Partial<NewEvent> & Pick<NewEvent, 'tenantId' | 'appId'>): NewEvent => ({
  type: 'user.updated',
  actor: { type: 'system', id: null },
  userId: null,
  data: {},
  ip: null,
  userAgent: null,
  ...fields,
});

const at = (seconds: number) => new Date(now.getTime() + seconds * 1000);

describe('store: events', () => {
  it('insertEvent inside a transaction: a rolled-back change leaves no event', async () => {
    const { tenantId, appId } = await twoApps();
    await expect(
      deps.db.transaction().execute(async (trx) => {
        await recordEvent(trx, event({ tenantId, appId }), at(0));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await listEvents(deps.db, { appId }, {}, 10)).toEqual([]);
    const id = await deps.db.transaction().execute((trx) => recordEvent(trx, event({ tenantId, appId, data: { changed: ['email'] } }), at(0)));
    expect(await findEvent(deps.db, appId, id)).toMatchObject({ event_id: id, app_id: appId, tenant_id: tenantId, type: 'user.updated', occurred_at: at(0).toISOString(), actor_type: 'system' });
  });

  it('listEvents: newest first within the app, the app’s user, or the tenant’s own; keyset after a position', async () => {
    const { tenantId, appId, otherAppId } = await twoApps();
    const user = randomUUID();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push(await recordEvent(deps.db, event({ tenantId, appId, userId: i % 2 ? user : null, type: i % 2 ? 'session.created' : 'user.created' }), at(i)));
    await recordEvent(deps.db, event({ tenantId, appId: otherAppId, userId: user }), at(9));
    const tenantOwn = await recordEvent(deps.db, event({ tenantId, appId: null, type: 'app.created' }), at(3));
    const page = await listEvents(deps.db, { appId }, {}, 3);
    expect(page.map((r) => r.event_id)).toEqual([ids[4], ids[3], ids[2]]);
    const last = page.at(-1)!;
    const next = await listEvents(deps.db, { appId }, { after: { occurredAt: last.occurred_at, eventId: last.event_id } }, 3);
    expect(next.map((r) => r.event_id)).toEqual([ids[1], ids[0]]);
    expect((await listEvents(deps.db, { appId, userId: user }, {}, 10)).map((r) => r.event_id)).toEqual([ids[3], ids[1]]);
    expect((await listEvents(deps.db, { appId }, { prefixes: ['user.'] }, 10)).map((r) => r.event_id)).toEqual([ids[4], ids[2], ids[0]]);
    expect((await listEvents(deps.db, { appId }, { types: ['session.created'], prefixes: ['app.'] }, 10)).map((r) => r.event_id)).toEqual([ids[3], ids[1]]);
    expect((await listEvents(deps.db, { appId }, { since: at(1).toISOString(), until: at(3).toISOString() }, 10)).map((r) => r.event_id)).toEqual([ids[2], ids[1]]);
    // A prefix's LIKE wildcards are literal: `user_` does not match `users.`.
    expect(await listEvents(deps.db, { appId }, { prefixes: ['u_er.'] }, 10)).toEqual([]);
    // A prefix with an underscore of its own matches it on both databases (SQLite's LIKE needs ESCAPE), and
    // the underscore is no wildcard: oauthXprovider.* is not oauth_provider.*.
    const provider = await recordEvent(deps.db, event({ tenantId, appId, type: 'oauth_provider.updated' }), at(6));
    await recordEvent(deps.db, event({ tenantId, appId, type: 'oauthXprovider.updated' }), at(7));
    expect((await listEvents(deps.db, { appId }, { prefixes: ['oauth_provider.'] }, 10)).map((r) => r.event_id)).toEqual([provider]);
    // The tenant's own events: creating the tenant and its apps wrote theirs at at(0); tenantOwn is the one after.
    const tenantEvents = await listEvents(deps.db, { tenantId }, {}, 10);
    expect(tenantEvents[0].event_id).toBe(tenantOwn);
    expect(tenantEvents.every((r) => r.app_id === null && r.tenant_id === tenantId)).toBe(true);
    expect((await listEvents(deps.db, { tenantId }, { since: at(1).toISOString() }, 10)).map((r) => r.event_id)).toEqual([tenantOwn]);
    expect(await findEvent(deps.db, otherAppId, ids[0])).toBeUndefined();
    expect(await findEvent(deps.db, appId, tenantOwn)).toBeUndefined();
  });

  it('countEventsByDay: per UTC day and type, its 16 counters summed, within the scope and the days asked', async () => {
    const { tenantId, appId, otherAppId } = await twoApps();
    const day = (n: number, hour = 12) => new Date(Date.UTC(2026, 3, 1 + n, hour));
    for (let i = 0; i < 20; i++) await recordEvent(deps.db, event({ tenantId, appId, type: 'user.created' }), day(0));
    await recordEvent(deps.db, event({ tenantId, appId, type: 'session.created' }), day(0, 0));
    await recordEvent(deps.db, event({ tenantId, appId, type: 'user.deleted' }), day(2, 23));
    await recordEvent(deps.db, event({ tenantId, appId, type: 'user.created' }), day(5));
    await recordEvent(deps.db, event({ tenantId, appId: otherAppId, type: 'user.created' }), day(0));
    await recordEvent(deps.db, event({ tenantId, appId: null, type: 'app.updated' }), day(0));
    const range = { fromDay: '2026-04-01', toDay: '2026-04-03' };
    expect(await countEventsByDay(deps.db, appId, range)).toEqual([
      { day: '2026-04-01', type: 'session.created', count: 1 },
      { day: '2026-04-01', type: 'user.created', count: 20 },
      { day: '2026-04-03', type: 'user.deleted', count: 1 },
    ]);
    expect(await countEventsByDay(deps.db, appId, { ...range, prefixes: ['user.'] })).toEqual([
      { day: '2026-04-01', type: 'user.created', count: 20 },
      { day: '2026-04-03', type: 'user.deleted', count: 1 },
    ]);
    expect(await countEventsByDay(deps.db, appId, { ...range, types: ['session.created'], prefixes: ['u_er.'] })).toEqual([{ day: '2026-04-01', type: 'session.created', count: 1 }]);
    expect(await countEventsByDay(deps.db, appId, { fromDay: '2026-04-06', toDay: '2026-04-06' })).toEqual([{ day: '2026-04-06', type: 'user.created', count: 1 }]);
    expect(await countEventsByDay(deps.db, otherAppId, range)).toEqual([{ day: '2026-04-01', type: 'user.created', count: 1 }]);
    // The tenant's own events count under the tenant's id (and never under an app's).
    expect((await countEventsByDay(deps.db, tenantId, range)).filter((r) => r.type === 'app.updated')).toEqual([{ day: '2026-04-01', type: 'app.updated', count: 1 }]);
  });
});
