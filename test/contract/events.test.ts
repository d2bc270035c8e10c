import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, uniqueEmail, type AuthEnv } from '../helpers/accounts.js';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { getProof } from '../helpers/hashcash.js';

// Events (docs/events.md): GET /v1/events and /v1/events/{id} (Secret) with their filters and keyset
// paging, and user.created written once per user, in the transaction that creates it, never for a refusal.

let env: AuthEnv;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  env = await startAuthServer({ RATE_LIMITS: '' });
  app = await createApp(env.server);
  other = await createApp(env.server, { tenantId: app.tenant_id });
});
afterAll(async () => {
  await env?.stop();
});

const secret = (path: string, key = app.secret_key) => api(env.server, 'GET', path, { bearer: key });
const createUser = (email: string, key = app.secret_key) => api(env.server, 'POST', '/v1/users', { bearer: key, body: { email }, headers: { 'user-agent': 'events-test/1' } });
const eventsOf = async (query: string, key = app.secret_key) => {
  const res = await secret(`/v1/events?${query}`, key);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.events as any[];
};

describe('user.created', () => {
  it('POST /v1/users writes one, with the secret key as actor, the request IP and User-Agent', async () => {
    const created = await createUser(uniqueEmail('server'));
    expect(created.status).toBe(201);
    const events = await eventsOf(`user_id=${created.body.id}`);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({
      type: 'user.created',
      tenant_id: app.tenant_id,
      app_id: app.app_id,
      actor: { type: 'secret_key', id: null },
      user_id: created.body.id,
      data: { source: 'server', email: created.body.email },
      ip: '127.0.0.1',
      user_agent: 'events-test/1',
    });
    expect(events[0].event_id).toMatch(/^evt_[0-9A-Za-z]{25}$/);
    expect(Date.parse(events[0].occurred_at)).toBeGreaterThan(Date.now() - 600_000);
  });

  it('a refused creation (the email is taken) writes none', async () => {
    const email = uniqueEmail('taken');
    const first = await createUser(email);
    expect((await createUser(email.toUpperCase())).status).toBe(409);
    const created = (await eventsOf('type=user.created&limit=200')).filter((e) => e.data.email?.toLowerCase() === email);
    expect(created.map((e) => e.user_id)).toEqual([first.body.id]);
  });

  it('a self sign-up writes one with source signup, the new user as actor', async () => {
    const email = uniqueEmail('self');
    const hashcash = await getProof(env.server, app.publishable_key);
    const res = await api(env.server, 'POST', '/v1/signups', { publishableKey: app.publishable_key, body: { email, hashcash }, headers: { 'user-agent': 'x'.repeat(600) } });
    expect(res.status).toBe(200);
    const events = await eventsOf(`user_id=${res.body.user_id}`);
    expect(events).toHaveLength(1);
    expect(events[0]).toMatchObject({ type: 'user.created', actor: { type: 'user', id: res.body.user_id }, data: { source: 'signup', email }, user_agent: 'x'.repeat(512) });
  });
});

describe('GET /v1/events', () => {
  it('pages newest first by cursor, every event once, limit at most 200', async () => {
    const fresh = await createApp(env.server, { tenantId: app.tenant_id });
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await createUser(uniqueEmail('page'), fresh.secret_key)).body.id);
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const res = await secret(`/v1/events?limit=3${cursor ? `&cursor=${cursor}` : ''}`, fresh.secret_key);
      expect(res.status).toBe(200);
      expect(res.body.events.length).toBeLessThanOrEqual(3);
      seen.push(...res.body.events.map((e: any) => e.user_id));
      cursor = res.body.next_cursor;
    } while (cursor);
    expect(seen).toHaveLength(7);
    expect(new Set(seen)).toEqual(new Set(ids));
    const all = await eventsOf('limit=200', fresh.secret_key);
    const order = all.map((e) => `${e.occurred_at} ${e.event_id}`);
    expect(order).toEqual([...order].sort().reverse());
    expect(all.map((e) => e.user_id)).toEqual(seen);
    expect((await secret('/v1/events?limit=201', fresh.secret_key)).status).toBe(400);
    expect((await eventsOf('', fresh.secret_key)).length).toBe(7);
  });

  it('filters by type list and prefix, by since and until', async () => {
    const before = new Date(Date.now() - 1000).toISOString();
    const user = (await createUser(uniqueEmail('filter'))).body.id;
    expect((await eventsOf(`user_id=${user}&type=user.*`)).length).toBe(1);
    expect((await eventsOf(`user_id=${user}&type=session.created,user.created`)).length).toBe(1);
    expect((await eventsOf(`user_id=${user}&type=session.*`)).length).toBe(0);
    expect((await eventsOf(`user_id=${user}&since=${before}`)).length).toBe(1);
    expect((await eventsOf(`user_id=${user}&until=${before}`)).length).toBe(0);
    expect((await eventsOf(`user_id=${user}&since=2999-01-01`)).length).toBe(0);
  });

  it('refuses a malformed type, time or cursor with 400 and its code', async () => {
    for (const query of ['type=User%20created', 'type=user.*.x', 'since=yesterday', 'until=2026-13-45T00:00:00Z', 'cursor=abc']) {
      const res = await secret(`/v1/events?${query}`);
      expect(res.status, query).toBe(400);
      expect(res.body.code).toBe('validation_failed');
    }
  });

  it('another app sees none of the app’s events; GET /v1/events/{id} of another app’s event is 404', async () => {
    const user = (await createUser(uniqueEmail('iso'))).body.id;
    const [event] = await eventsOf(`user_id=${user}`);
    const one = await secret(`/v1/events/${event.event_id}`);
    expect(one.status).toBe(200);
    expect(one.body).toEqual(event);
    expect((await eventsOf(`user_id=${user}`, other.secret_key)).length).toBe(0);
    expect((await eventsOf('', other.secret_key)).some((e) => e.app_id !== other.app_id)).toBe(false);
    const foreign = await secret(`/v1/events/${event.event_id}`, other.secret_key);
    expect(foreign.status).toBe(404);
    expect(foreign.body.code).toBe('not_found');
    expect((await secret('/v1/events/evt_nothing')).status).toBe(404);
    expect((await api(env.server, 'GET', '/v1/events', { bearer: 'sk_wrong' })).status).toBe(401);
    expect((await api(env.server, 'GET', '/v1/events', { publishableKey: app.publishable_key })).status).toBe(401);
  });
});
