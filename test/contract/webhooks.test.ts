import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

// docs/webhooks.md: the endpoint records, their routes, the cap of 20 per app, isolation between apps.

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe('17 webhook endpoints', () => {
  let server: TestServer;
  let app: TestApp;
  const as = (key: string) => (method: string, path: string, body?: unknown) => api(server, method, path, { bearer: key, body });
  let secret: ReturnType<typeof as>;

  beforeAll(async () => {
    server = await startServer({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    app = await createApp(server);
    secret = as(app.secret_key);
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('POST /v1/webhooks → 201 with the record and a whsec_ secret shown once; GET never shows it', async () => {
    const res = await secret('POST', '/v1/webhooks', { url: 'https://hooks.example.com/gatehouse', description: 'sync' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      webhook_id: expect.stringMatching(/^wh_[A-Za-z0-9]{24}$/),
      url: 'https://hooks.example.com/gatehouse',
      event_types: ['*'],
      description: 'sync',
      enabled: true,
      disabled_reason: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
      created_at: expect.stringMatching(ISO),
      updated_at: res.body.created_at,
      stats: { succeeded_24h: 0, failed_24h: 0 },
    });
    expect(Buffer.from(res.body.secret.slice(6), 'base64')).toHaveLength(32);
    // stats move as the endpoint's own webhook.created is attempted (this host does not resolve here).
    const { secret: shown, stats: _stats, ...record } = res.body;
    const one = await secret('GET', `/v1/webhooks/${res.body.webhook_id}`);
    expect(one.body).toEqual({ ...record, stats: { succeeded_24h: 0, failed_24h: expect.any(Number) } });
    const list = await secret('GET', '/v1/webhooks');
    expect(list.body.webhooks).toContainEqual({ ...record, stats: expect.any(Object) });
    expect(JSON.stringify(list.body)).not.toContain(shown.slice(6));
  });

  it('PATCH changes the fields given; event_types entries are types, prefixes or "*"', async () => {
    const created = (await secret('POST', '/v1/webhooks', { url: 'https://hooks.example.com/a', event_types: ['user.created'] })).body;
    const res = await secret('PATCH', `/v1/webhooks/${created.webhook_id}`, { event_types: ['user.*', 'session.created'], enabled: false });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ event_types: ['user.*', 'session.created'], enabled: false, disabled_reason: 'disabled by the app', url: 'https://hooks.example.com/a' });
    const enabled = await secret('PATCH', `/v1/webhooks/${created.webhook_id}`, { enabled: true });
    expect(enabled.body).toMatchObject({ enabled: true, disabled_reason: null });
    expect({ ...(await secret('GET', `/v1/webhooks/${created.webhook_id}`)).body, stats: null }).toEqual({ ...enabled.body, stats: null });
  });

  it.each([
    [{ url: 'not a url' }],
    [{ url: 'ftp://hooks.example.com/' }],
    [{ url: 'https://user:pw@hooks.example.com/' }],
    [{ url: 'https://hooks.example.com/', event_types: [] }],
    [{ url: 'https://hooks.example.com/', event_types: ['User Created'] }],
    [{ url: 'https://hooks.example.com/', event_types: ['user.**'] }],
    [{ url: 'https://hooks.example.com/', secret: 'whsec_mine' }],
    [{ url: 'https://hooks.example.com/', description: 'x'.repeat(501) }],
  ])('400 {detail, code} for %j, and nothing is created', async (body) => {
    const before = (await secret('GET', '/v1/webhooks')).body.webhooks.length;
    const res = await secret('POST', '/v1/webhooks', body);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ detail: expect.any(String), code: expect.any(String) });
    expect((await secret('GET', '/v1/webhooks')).body.webhooks).toHaveLength(before);
  });

  it('PATCH with a refused value → 400 and the endpoint is unchanged', async () => {
    const created = (await secret('POST', '/v1/webhooks', { url: 'https://hooks.example.com/b' })).body;
    const res = await secret('PATCH', `/v1/webhooks/${created.webhook_id}`, { url: 'gopher://x', description: 'changed' });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('webhook_url_refused');
    expect((await secret('GET', `/v1/webhooks/${created.webhook_id}`)).body.description).toBe('');
  });

  it('DELETE → {status: "deleted"}; then 404 on every route of it', async () => {
    const created = (await secret('POST', '/v1/webhooks', { url: 'https://hooks.example.com/c' })).body;
    expect((await secret('DELETE', `/v1/webhooks/${created.webhook_id}`)).body).toEqual({ status: 'deleted' });
    for (const [method, path] of [
      ['GET', ''],
      ['PATCH', ''],
      ['DELETE', ''],
      ['POST', '/rotate_secret'],
      ['POST', '/test'],
      ['GET', '/deliveries'],
    ]) {
      const res = await secret(method, `/v1/webhooks/${created.webhook_id}${path}`, method === 'PATCH' ? { description: 'x' } : undefined);
      expect(res.status, `${method} ${path}`).toBe(404);
    }
  });

  it("isolation: another app's secret key (same tenant or another) gets 404 for every route of this app's webhook, and sees none in its list", async () => {
    const created = (await secret('POST', '/v1/webhooks', { url: 'https://hooks.example.com/d' })).body;
    const test = (await secret('POST', `/v1/webhooks/${created.webhook_id}/test`)).body;
    for (const other of [await createApp(server, { tenantId: app.tenant_id }), await createApp(server)]) {
      const foreign = as(other.secret_key);
      expect((await foreign('GET', '/v1/webhooks')).body).toEqual({ webhooks: [] });
      for (const [method, path, body] of [
        ['GET', '', undefined],
        ['PATCH', '', { description: 'mine now' }],
        ['DELETE', '', undefined],
        ['POST', '/rotate_secret', undefined],
        ['POST', '/test', undefined],
        ['GET', '/deliveries', undefined],
        ['POST', `/deliveries/${test.delivery_id}/retry`, undefined],
      ] as const) {
        const res = await foreign(method, `/v1/webhooks/${created.webhook_id}${path}`, body);
        expect(res.status, `${method} ${path}`).toBe(404);
        expect(res.body.code).toBe('not_found');
      }
    }
    expect((await secret('GET', `/v1/webhooks/${created.webhook_id}`)).body.description).toBe('');
    // The publishable key is no credential for these routes.
    expect((await api(server, 'GET', '/v1/webhooks', { publishableKey: app.publishable_key })).status).toBe(401);
  });

  it('at most 20 per app: 25 creations at once → exactly 20 created, the rest 409 webhook_limit_reached; a deletion frees a slot', async () => {
    const fresh = await createApp(server);
    const own = as(fresh.secret_key);
    const create = (i: number) => own('POST', '/v1/webhooks', { url: `https://hooks.example.com/${i}`, event_types: ['webhook.test'] });
    let answers = await Promise.all(Array.from({ length: 25 }, (_, i) => create(i)));
    // On a loaded machine a request may wait out the pool behind the count's row lock (503, nothing committed):
    // sent again until none is, so each of the 25 is counted once.
    for (let round = 0; round < 20 && answers.some((r) => r.status === 503); round++) {
      answers = await Promise.all(answers.map((r, i) => (r.status === 503 ? create(i) : r)));
    }
    expect(answers.filter((r) => r.status === 201)).toHaveLength(20);
    const refused = answers.filter((r) => r.status !== 201);
    expect(refused).toHaveLength(5);
    for (const res of refused) expect(res.body).toEqual({ detail: expect.any(String), code: 'webhook_limit_reached' });
    const list = (await own('GET', '/v1/webhooks')).body.webhooks;
    expect(list).toHaveLength(20);
    expect((await own('DELETE', `/v1/webhooks/${list[0].webhook_id}`)).status).toBe(200);
    expect((await own('POST', '/v1/webhooks', { url: 'https://hooks.example.com/again' })).status).toBe(201);
    expect((await own('POST', '/v1/webhooks', { url: 'https://hooks.example.com/over' })).status).toBe(409);
  });
});
