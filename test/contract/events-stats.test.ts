import { beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_TOKEN, manage } from '../helpers/console.js';
import { api, createApp, createTenant, type TestApp } from '../helpers/fixtures.js';
import { sharedServer, type TestServer } from '../helpers/server.js';

// GET /v1/events/stats (docs/events.md, contract 17): the app's events per UTC day and type from the
// counters kept as events are written; Secret, or a Console credential with X-App-Id; only its own app.

let server: TestServer;
let app: TestApp;
let other: TestApp;
let viewerToken: string;
let day: string;

const stats = (query: string, key = app.secret_key) => api(server, 'GET', `/v1/events/stats${query}`, { bearer: key });
const createUser = (key: string) => api(server, 'POST', '/v1/users', { bearer: key, body: { email: `stats.${Math.random().toString(36).slice(2)}@example.com` } });
const dayAfter = (date: string, n: number) => new Date(Date.parse(date) + n * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  server = await sharedServer({ ADMIN_TOKEN });
  const tenantId = await createTenant(server);
  app = await createApp(server, { tenantId });
  other = await createApp(server);
  const token = await manage(server, ADMIN_TOKEN, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'charts', role: 'viewer' });
  expect(token.status, JSON.stringify(token.body)).toBe(201);
  viewerToken = token.body.token;
  for (let i = 0; i < 3; i++) expect((await createUser(app.secret_key)).status).toBe(201);
  expect((await createUser(other.secret_key)).status).toBe(201);
  // The day the counters keep is the events' own (UTC), read back rather than guessed from this clock.
  const events = await api(server, 'GET', '/v1/events?type=user.created', { bearer: app.secret_key });
  day = events.body.events[0].occurred_at.slice(0, 10);
});

describe('17 GET /v1/events/stats', () => {
  it("counts the app's events of the day by type (every counter of the day summed)", async () => {
    const res = await stats(`?since=${day}&until=${day}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toEqual({ days: [{ date: day, counts: { 'user.created': 3 } }] });
  });

  it('answers every day of the range, oldest first, {} for a day without events', async () => {
    const res = await stats(`?since=${dayAfter(day, -2)}T23:59:59Z&until=${day}T00:00:00.000Z`);
    expect(res.body.days).toEqual([
      { date: dayAfter(day, -2), counts: {} },
      { date: dayAfter(day, -1), counts: {} },
      { date: day, counts: { 'user.created': 3 } },
    ]);
    const later = await stats(`?since=${dayAfter(day, 1)}&until=${dayAfter(day, 3)}`);
    expect(later.body.days.map((d: { counts: object }) => d.counts)).toEqual([{}, {}, {}]);
  });

  it('without since: the 30 days that end with until (default now)', async () => {
    const res = await stats(`?until=${day}T12:00:00Z`);
    expect(res.body.days).toHaveLength(30);
    expect(res.body.days[0].date).toBe(dayAfter(day, -29));
    expect(res.body.days[29]).toEqual({ date: day, counts: { 'user.created': 3 } });
    const now = await stats('');
    expect(now.status).toBe(200);
    expect(now.body.days).toHaveLength(30);
  });

  it('type filters as GET /v1/events does: exact types, user.* as a prefix', async () => {
    const range = `since=${day}&until=${day}`;
    expect((await stats(`?${range}&type=user.*`)).body.days[0].counts).toEqual({ 'user.created': 3 });
    expect((await stats(`?${range}&type=session.*,user.deleted`)).body.days[0].counts).toEqual({});
    expect((await stats(`?${range}&type=user.created`)).body.days[0].counts).toEqual({ 'user.created': 3 });
  });

  it("another app's key sees its own counts only", async () => {
    expect((await stats(`?since=${day}&until=${day}`, other.secret_key)).body.days).toEqual([{ date: day, counts: { 'user.created': 1 } }]);
  });

  it("a Console credential with X-App-Id reads its tenant's app; another tenant's app is 404", async () => {
    const mine = await manage(server, viewerToken, 'GET', `/v1/events/stats?since=${day}&until=${day}`, undefined, app.app_id);
    expect(mine.status, JSON.stringify(mine.body)).toBe(200);
    expect(mine.body.days).toEqual([{ date: day, counts: { 'user.created': 3 } }]);
    const theirs = await manage(server, viewerToken, 'GET', `/v1/events/stats?since=${day}&until=${day}`, undefined, other.app_id);
    expect(theirs.status).toBe(404);
    expect(JSON.stringify(theirs.body)).not.toContain('user.created');
    expect((await manage(server, viewerToken, 'GET', '/v1/events/stats')).body.code).toBe('app_id_required');
  });

  it('400 validation_failed for a bad time or type, since after until, or more than 366 days; 401 without a key', async () => {
    for (const query of ['?since=yesterday', '?until=2026-13-01', '?type=User Created', `?since=${day}&until=${dayAfter(day, -1)}`, `?since=${dayAfter(day, -366)}&until=${day}`]) {
      const res = await stats(query);
      expect(res.status, query).toBe(400);
      expect(res.body, query).toMatchObject({ code: 'validation_failed', detail: expect.any(String) });
    }
    expect((await stats(`?since=${dayAfter(day, -365)}&until=${day}`)).body.days).toHaveLength(366);
    expect((await api(server, 'GET', '/v1/events/stats')).status).toBe(401);
  });
});
