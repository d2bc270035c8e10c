import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSmtpSink, type SmtpSink } from '../helpers/smtp-sink.js';
import { TEST_DB } from '../helpers/db.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { ADMIN_TOKEN, consoleApp, consoleUser, manage, tenantOwnedBy } from '../helpers/console.js';
import type { AuthEnv } from '../helpers/accounts.js';

// docs/management.md: Console credentials are read from the database on every request, so what one node
// does (a token revoked, a member removed) holds on the other at once. Two nodes on one PostgreSQL.
describe.skipIf(TEST_DB !== 'postgres')('the Management API on two nodes', () => {
  let sink: SmtpSink;
  let a: TestServer;
  let b: TestServer;
  let env: AuthEnv;
  const shared = { ADMIN_TOKEN, PUBLIC_BASE_URL: 'https://auth.example.test' };

  beforeAll(async () => {
    sink = await startSmtpSink();
    a = await startServer({ ...shared, SMTP_URL: sink.url });
    b = await startServer({ ...shared, SMTP_URL: sink.url, DATABASE_URL: a.databaseUrl, MASTER_KEY: a.env.MASTER_KEY });
    env = { server: a, sink, stop: async () => {} };
  }, 180_000);
  afterAll(async () => {
    await b?.stop();
    await a?.stop();
    await sink?.close();
  });

  it('both nodes made one console app; a token revoked on one node is refused by the other at once', async () => {
    expect((await consoleApp(b)).app_id).toBe((await consoleApp(a)).app_id);
    const owner = await consoleUser(env, await consoleApp(a), 'nodes-owner');
    const tenantId = await tenantOwnedBy(env, owner);
    const app = await manage(a, owner.token, 'POST', `/v1/tenants/${tenantId}/apps`, { name: 'Two nodes' });
    const made = await manage(a, owner.token, 'POST', `/v1/tenants/${tenantId}/tokens`, { name: 'ci', role: 'admin' });
    const token = made.body.token as string;
    // Node B has seen the token work (on both kinds of route) before it is revoked on node A.
    expect((await manage(b, token, 'GET', `/v1/tenants/${tenantId}/apps`)).status).toBe(200);
    expect((await manage(b, token, 'GET', '/v1/users', undefined, app.body.app_id)).status).toBe(200);
    expect((await manage(a, owner.token, 'DELETE', `/v1/tenants/${tenantId}/tokens/${made.body.token_id}`)).status).toBe(200);
    expect((await manage(b, token, 'GET', `/v1/tenants/${tenantId}/apps`)).status).toBe(401);
    expect((await manage(b, token, 'GET', '/v1/users', undefined, app.body.app_id)).status).toBe(401);
  }, 180_000);
});
