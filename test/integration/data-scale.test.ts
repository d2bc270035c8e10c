import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSeconds, iso, type Clock } from '../../src/clock.js';
import type { Deps } from '../../src/deps.js';
import { createApp, createTenant, type AppsDeps } from '../../src/services/apps/apps.js';
import { measureUsage } from '../../src/services/billing/metering.js';
import { parsePeriod } from '../../src/services/billing/pricing.js';
import { pruneExpiredRows, PRUNE_BATCH } from '../../src/services/maintenance.js';
import { refreshSession, startSession } from '../../src/services/sessions/sessions.js';
import { listUsers, OFFSET_STEP } from '../../src/services/accounts/users.js';
import { sumActiveUsersQuery } from '../../src/store/repos/active-users.js';
import { dueSessionsQuery, TIMED_ROWS, timedRowsDelete } from '../../src/store/repos/expired-rows.js';
import { findUserById, usersPageQuery, userPositionQuery, type User } from '../../src/store/repos/users.js';
import { analyze, queryPlan, scans } from '../helpers/query-plan.js';
import { openInProcess } from '../helpers/in-process.js';

// Issue 38, flat cost at scale, in-process on the run's real database with a clock the test moves:
// monthly active users kept exact as sessions start and refresh, the user list's keyset and long offsets,
// the clean-up's batches, and the plans that show each of them walking an index.
let deps: Deps;
let close: (() => Promise<void>) | undefined;
let now = new Date('2026-05-30T23:59:00.000Z');
const clock: Clock = { now: () => now };

beforeAll(async () => {
  ({ deps, close } = await openInProcess(clock, () => ({ RATE_LIMITS: 'off' })));
});
afterAll(async () => {
  await close?.();
});

const appsDeps = (): AppsDeps => ({ db: deps.db, clock, keys: deps.keys, hashcashEnabled: false });

/** `n` users of the app inserted in multi-row statements, created one millisecond apart from `from` (several per millisecond when `perMs` > 1). */
async function insertUsers(appId: string, n: number, from: Date, perMs = 1): Promise<string[]> {
  const ids: string[] = [];
  for (let start = 0; start < n; start += 500) {
    const rows = Array.from({ length: Math.min(500, n - start) }, (_, k) => {
      const i = start + k;
      const id = randomUUID();
      ids.push(id);
      const at = iso(new Date(from.getTime() + Math.floor(i / perMs)));
      return { id, app_id: appId, email: `u${i}.${id.slice(0, 8)}@example.com`, email_normalized: `u${i}.${id.slice(0, 8)}@example.com`, email_verified: 1, password_hash: null, is_bot: 0, public_key: null, created_at: at, updated_at: at };
    });
    await deps.db.insertInto('users').values(rows).execute();
  }
  // The kept count, as migration 0027 and the bench fill set it for users written by SQL.
  await sql`delete from user_counts where app_id = ${appId}`.execute(deps.db);
  await sql`insert into user_counts (app_id, slot, users) select app_id, substr(id, 1, 1), count(*) from users where app_id = ${appId} group by app_id, substr(id, 1, 1)`.execute(deps.db);
  return ids;
}

const userOf = async (appId: string, id: string) => (await findUserById(deps.db, appId, id)) as User;

describe('12 monthly active users, kept as sessions start and refresh', () => {
  it('each user counts once per app and month, exactly, across months, apps and tenants, under parallel sign-ins and refreshes', async () => {
    const tenant = await createTenant(appsDeps(), 'Counted');
    const shop = await createApp(appsDeps(), tenant.tenant_id, 'Shop', {});
    const blog = await createApp(appsDeps(), tenant.tenant_id, 'Blog', {});
    const elsewhere = await createTenant(appsDeps(), 'Elsewhere');
    const theirs = await createApp(appsDeps(), elsewhere.tenant_id, 'Theirs', {});
    const shopUsers = await Promise.all((await insertUsers(shop.app_id, 12, now)).map((id) => userOf(shop.app_id, id)));
    const blogUsers = await Promise.all((await insertUsers(blog.app_id, 5, now)).map((id) => userOf(blog.app_id, id)));
    const [stranger] = await Promise.all((await insertUsers(theirs.app_id, 1, now)).map((id) => userOf(theirs.app_id, id)));
    const active = async (tenantId: string, month: string) => (await measureUsage(deps.db, tenantId, parsePeriod(month, now))).monthlyActiveUsers;

    // May: every shop user signs in three times at once, two blog users twice at once.
    const signedIn = [...shopUsers, ...shopUsers, ...shopUsers, blogUsers[0]!, blogUsers[0]!, blogUsers[1]!];
    const sessions = await Promise.all(signedIn.map((u) => startSession(deps, { id: u.appId, tenantId: tenant.tenant_id }, u, { opening: { method: 'password' } })));
    await startSession(deps, { id: theirs.app_id, tenantId: elsewhere.tenant_id }, stranger!, { opening: { method: 'password' } });
    expect(await active(tenant.tenant_id, '2026-05')).toBe(14);
    expect(await active(elsewhere.tenant_id, '2026-05')).toBe(1);

    // June (a minute later): every session refreshes at once, some twice in a row; the users refreshing
    // are counted in June once each, May keeps its figure.
    now = new Date('2026-06-01T00:00:00.000Z');
    const refreshed = await Promise.all(sessions.map((s, i) => refreshSession(deps, signedIn[i]!.appId, s.refresh_token)));
    await Promise.all(refreshed.slice(0, 6).map((s) => refreshSession(deps, shop.app_id, s.refresh_token)));
    await startSession(deps, { id: blog.app_id, tenantId: tenant.tenant_id }, blogUsers[4]!, { opening: { method: 'password' } });
    expect(await active(tenant.tenant_id, '2026-05')).toBe(14);
    expect(await active(tenant.tenant_id, '2026-06')).toBe(15);
    expect(await active(elsewhere.tenant_id, '2026-06')).toBe(0);

    // The kept counts are the rows' count, per app and month.
    const rows = await deps.db.selectFrom('active_users').select(['app_id', 'period']).where('app_id', 'in', [shop.app_id, blog.app_id]).execute();
    expect(rows.filter((r) => r.period === '2026-06')).toHaveLength(15);
  });

  it('the count reads the kept counts through indexes (EXPLAIN)', async () => {
    const plan = await queryPlan(deps.db, sumActiveUsersQuery(deps.db, randomUUID(), '2026-06').compile());
    expect(scans(plan), plan).toEqual([]);
    expect(plan).toMatch(/applications_tenant/);
  });

  it('the clean-up deletes marks of months before the last, never the counts', async () => {
    now = new Date('2026-08-02T00:00:00.000Z');
    const before = await deps.db.selectFrom('active_user_counts').select((eb) => eb.fn.sum<number>('users').as('n')).executeTakeFirstOrThrow();
    const report = await pruneExpiredRows(deps);
    expect(report.active_users).toBeGreaterThan(0);
    const months = await deps.db.selectFrom('active_users').select('period').distinct().execute();
    expect(months.map((m) => m.period).filter((p) => p < '2026-07')).toEqual([]);
    const after = await deps.db.selectFrom('active_user_counts').select((eb) => eb.fn.sum<number>('users').as('n')).executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
  });
});

describe('4.5 GET /v1/users at scale: keyset and long offsets', () => {
  let appId: string;
  let newestFirst: string[];
  let createdAt: Map<string, string>;
  const total = OFFSET_STEP * 2 + 500;

  beforeAll(async () => {
    const tenant = await createTenant(appsDeps(), 'Many');
    appId = (await createApp(appsDeps(), tenant.tenant_id, 'Many', {})).app_id;
    // Three users a millisecond: ties on created_at are ordered by id.
    await insertUsers(appId, total, new Date('2026-01-01T00:00:00.000Z'), 3);
    const rows = await deps.db.selectFrom('users').select(['id', 'created_at']).where('app_id', '=', appId).execute();
    rows.sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
    newestFirst = rows.map((r) => r.id);
    createdAt = new Map(rows.map((r) => [r.id, r.created_at]));
  }, 120_000);

  it('an offset past OFFSET_STEP (walked in steps) answers the users at that place, newest first', async () => {
    const offset = total - 30;
    const page = await listUsers(deps, appId, { limit: 20, offset });
    expect(page.users.map((u) => u.id)).toEqual(newestFirst.slice(offset, offset + 20));
    const last = await listUsers(deps, appId, { limit: 20, offset: offset + 20 });
    expect(last.users.map((u) => u.id)).toEqual(newestFirst.slice(offset + 20));
    expect(last.nextCursor).toBeNull();
    expect((await listUsers(deps, appId, { limit: 20, offset: total + OFFSET_STEP })).users).toEqual([]);
  });

  it('keyset pages from a cursor continue exactly where the offset page ended; total is every user on each page', async () => {
    const first = await listUsers(deps, appId, { limit: 200, offset: OFFSET_STEP - 100 });
    expect(first.total).toBe(total);
    const next = await listUsers(deps, appId, { limit: 200, offset: 0, cursor: first.nextCursor! });
    expect(next.total).toBe(total);
    expect([...first.users, ...next.users].map((u) => u.id)).toEqual(newestFirst.slice(OFFSET_STEP - 100, OFFSET_STEP + 300));
  });

  it('the page, the offset step and the count each walk the index users_app_newest, with no sort (EXPLAIN)', async () => {
    await analyze(deps.db);
    // A cursor near the newest, with an offset step's worth of users after it, as a deep walk meets them.
    const after = { createdAt: createdAt.get(newestFirst[10]!)!, id: newestFirst[10]! };
    for (const query of [
      usersPageQuery(deps.db, appId, { offset: 100, limit: 51 }),
      usersPageQuery(deps.db, appId, { offset: 0, limit: 51, after }),
      userPositionQuery(deps.db, appId, { skip: OFFSET_STEP, after }),
    ]) {
      const plan = await queryPlan(deps.db, query.compile());
      expect(scans(plan), plan).toEqual([]);
      expect(plan).toMatch(/users_app_newest/);
    }
  });
});

describe('clean-up in bounded batches over indexes', () => {
  it('deletes every dead session however many, in batches, found through sessions_sweep (EXPLAIN), and leaves live ones to work', async () => {
    now = new Date('2027-01-01T00:00:00.000Z');
    const tenant = await createTenant(appsDeps(), 'Swept');
    const app = await createApp(appsDeps(), tenant.tenant_id, 'Swept', {});
    const [userId] = await insertUsers(app.app_id, 1, now);
    const user = await userOf(app.app_id, userId!);
    const live = await startSession(deps, { id: app.app_id, tenantId: app.tenant_id }, user, { opening: { method: 'password' } });
    // Many more live sessions than dead ones, as a database holds: the due ones are a short range of sessions_sweep.
    const future = iso(addSeconds(now, 20 * 86_400));
    for (let start = 0; start < 4 * PRUNE_BATCH; start += 500) {
      const rows = Array.from({ length: Math.min(500, 4 * PRUNE_BATCH - start) }, () => ({ id: randomUUID(), app_id: app.app_id, user_id: userId!, created_at: iso(now), expires_at: future, revoked_at: null, refresh_hash: null, sweep_after: future }));
      await deps.db.insertInto('sessions').values(rows).execute();
    }
    // Sessions that expired a year ago: 2.5 batches of them, half written before migration 0022 (no sweep_after).
    const dead = PRUNE_BATCH * 2 + Math.floor(PRUNE_BATCH / 2);
    const longAgo = iso(addSeconds(now, -365 * 86_400));
    for (let start = 0; start < dead; start += 500) {
      const rows = Array.from({ length: Math.min(500, dead - start) }, (_, k) => ({ id: randomUUID(), app_id: app.app_id, user_id: userId!, created_at: longAgo, expires_at: longAgo, revoked_at: null, refresh_hash: null, sweep_after: (start + k) % 2 ? longAgo : null }));
      await deps.db.insertInto('sessions').values(rows).execute();
    }
    await analyze(deps.db);
    for (const unswept of [false, true]) {
      const plan = await queryPlan(deps.db, dueSessionsQuery(deps.db, iso(addSeconds(now, -62 * 86_400)), PRUNE_BATCH, unswept).compile());
      expect(scans(plan), plan).toEqual([]);
      expect(plan).toMatch(/sessions_sweep/);
    }
    // The sessions of the tests above expired in 2026 too.
    const others = await deps.db.selectFrom('sessions').select('id').where('app_id', '<>', app.app_id).execute();
    const report = await pruneExpiredRows(deps);
    expect(report.sessions).toBe(dead + others.length);
    const left = await deps.db.selectFrom('sessions').select('id').where('app_id', '=', app.app_id).execute();
    expect(left).toHaveLength(4 * PRUNE_BATCH + 1);
    expect(left.map((s) => s.id)).toContain(live.session_id);
    expect((await refreshSession(deps, app.app_id, live.refresh_token)).session_id).toBe(live.session_id);
  });

  it('every other clean-up statement picks its rows from an index (EXPLAIN)', async () => {
    const queries = [
      ...TIMED_ROWS.map((rows) => timedRowsDelete(rows, iso(now), PRUNE_BATCH).compile(deps.db)),
    ];
    for (const query of queries) {
      const plan = await queryPlan(deps.db, query);
      expect(scans(plan), `${query.sql}\n${plan}`).toEqual([]);
    }
  });
});
