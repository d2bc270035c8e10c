import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { createBucket, putObject, random, rawRequest } from '../helpers/objects.js';
import { asServer, orgOf, orgUser } from '../helpers/organizations.js';
import { startServer, type TestServer } from '../helpers/server.js';
import { makeTable } from '../helpers/tables.js';

// Issue 52 (docs/organizations.md): two nodes on one PostgreSQL database and one blob store. A member removed
// through one node, while their access token (with the organisation's claims) is still live, is refused the
// organisation's rows and objects by the other node at once: the membership is a condition of every data
// statement, and no node caches it. PostgreSQL only (test/suite.mjs POSTGRES_ONLY): two nodes need one database.

const ISSUER = 'https://auth.example.test';
let first: TestServer;
let second: TestServer;
let app: TestApp;
let blobs: string;

beforeAll(async () => {
  blobs = mkdtempSync(join(tmpdir(), 'gatehouse-org-blobs-'));
  const shared = { RATE_LIMITS: '', PUBLIC_BASE_URL: ISSUER, BLOB_STORE: `file:${blobs}` };
  first = await startServer(shared);
  second = await startServer({ ...shared, DATABASE_URL: first.databaseUrl, MASTER_KEY: first.env.MASTER_KEY });
  app = await createApp(first);
});
afterAll(async () => {
  await second?.stop();
  await first?.stop();
  rmSync(blobs, { recursive: true, force: true });
});

describe('a member removed while their token is live, on a second node', () => {
  it("is refused the organisation's rows and objects at once; the other members are not", async () => {
    const tableId = (await makeTable(first, { bearer: app.secret_key }, [{ name: 'title', type: 'text' }])).table_id as string;
    const bucketId = (await createBucket(first, app)).bucket_id;
    const owner = await orgUser(first, app);
    const plain = await orgUser(first, app);
    const orgId = await orgOf(first, app, owner);
    expect((await asServer(first, app)('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' })).status).toBe(201);
    const active = async (token: string) => (await api(first, 'POST', '/v1/sessions/active_organization', { publishableKey: app.publishable_key, bearer: token, body: { organization_id: orgId } })).body.access_token as string;
    const plainToken = await active(plain.token);
    const ownerToken = await active(owner.token);
    const on = (server: TestServer, token: string) => (method: string, path: string, body?: unknown) => api(server, method, path, { publishableKey: app.publishable_key, bearer: token, body });
    const objectOn = (server: TestServer, token: string, method: string, key: string) =>
      rawRequest(server, method, `/v1/buckets/${bucketId}/objects/${key}?organization_id=${orgId}`, { bearer: token, publishableKey: app.publishable_key });
    const putOn = (server: TestServer, token: string, key: string) => putObject(server, app, bucketId, key, random(64), { bearer: token, publishableKey: app.publishable_key, query: `?organization_id=${orgId}` });

    // Before: the member works on the second node with the token the first one issued.
    const row = await on(second, plainToken)('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'before' }, organization_id: orgId });
    expect(row.status, JSON.stringify(row.body)).toBe(201);
    expect((await putOn(second, plainToken, 'before.bin')).status).toBe(200);
    expect((await objectOn(second, plainToken, 'GET', 'before.bin')).status).toBe(200);

    // Removed through the first node; the second refuses every read and write at once.
    expect((await asServer(first, app)('DELETE', `/v1/organizations/${orgId}/members/${plain.id}`)).status).toBe(200);
    const gone = on(second, plainToken);
    expect((await gone('GET', `/v1/tables/${tableId}/rows/${row.body.row_id}`)).status).toBe(404);
    expect((await gone('PATCH', `/v1/tables/${tableId}/rows/${row.body.row_id}`, { data: { title: 'after' } })).status).toBe(404);
    expect((await gone('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'after' }, organization_id: orgId })).status).toBe(404);
    expect((await gone('POST', `/v1/tables/${tableId}/rows/query`, {})).body.rows).toEqual([]);
    expect((await objectOn(second, plainToken, 'GET', 'before.bin')).status).toBe(404);
    expect((await putOn(second, plainToken, 'after.bin')).status).toBe(404);
    expect((await objectOn(second, plainToken, 'DELETE', 'before.bin')).status).toBe(404);
    expect((await rawRequest(second, 'GET', `/v1/buckets/${bucketId}/objects?organization_id=${orgId}`, { bearer: plainToken, publishableKey: app.publishable_key })).json.objects).toEqual([]);

    // The owner, on the second node, still has all of it, unchanged.
    expect((await on(second, ownerToken)('GET', `/v1/tables/${tableId}/rows/${row.body.row_id}`)).body.data).toEqual({ title: 'before' });
    expect((await objectOn(second, ownerToken, 'GET', 'before.bin')).status).toBe(200);
    expect((await objectOn(second, ownerToken, 'GET', 'after.bin')).status).toBe(404);
  });
});
