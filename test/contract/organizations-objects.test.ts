import { beforeAll, describe, expect, it } from 'vitest';
import { api, createApp } from '../helpers/fixtures.js';
import { createBucket, putObject, random, rawRequest } from '../helpers/objects.js';
import { activeToken, asServer, orgOf, orgUser } from '../helpers/organizations.js';
import { useServerApp } from '../helpers/private-app.js';

// Issue 52 (docs/organizations.md): objects of an organisation (`?organization_id=`). Members read and write
// them while it is their session's active organisation; a non-member, another active organisation, a member
// removed a moment ago, another app's credentials get 404 (the gate is inside the statements); the secret
// key reaches them while the organisation is live; max_size_bytes_per_org is exact under concurrent uploads.

const { server, app } = useServerApp({ RATE_LIMITS: '' });
let bucketId: string;

beforeAll(async () => {
  bucketId = (await createBucket(server, app)).bucket_id;
});

const path = (key: string, orgId?: string, bucket = bucketId) => `/v1/buckets/${bucket}/objects/${key}${orgId ? `?organization_id=${orgId}` : ''}`;
const put = (token: string, key: string, body: Buffer, orgId?: string, bucket = bucketId) =>
  putObject(server, app, bucket, key, body, { bearer: token, publishableKey: app.publishable_key, query: orgId ? `?organization_id=${orgId}` : '' });
const as = (token: string) => (method: string, url: string) => rawRequest(server, method, url, { bearer: token, publishableKey: app.publishable_key });

/** An organisation of a new owner with a second member; both with it active. */
async function team() {
  const owner = await orgUser(server, app);
  const member = await orgUser(server, app);
  const orgId = await orgOf(server, app, owner);
  expect((await asServer(server, app)('POST', `/v1/organizations/${orgId}/members`, { user_id: member.id, role: 'member' })).status).toBe(201);
  return { owner, member, orgId, ownerToken: await activeToken(server, app, owner, orgId), memberToken: await activeToken(server, app, member, orgId) };
}

describe('objects of an organisation', () => {
  it('members write, read, list and delete them with it active; without ?organization_id= objects stay their own', async () => {
    const { owner, orgId, ownerToken, memberToken } = await team();
    const bytes = random(300);
    const stored = await put(ownerToken, 'plan.txt', bytes, orgId);
    expect(stored.status, JSON.stringify(stored.json)).toBe(200);
    expect(stored.json).toMatchObject({ key: 'plan.txt', size_bytes: 300, user_id: null, organization_id: orgId });
    // The owner's own object of the same key is another object.
    const own = await put(ownerToken, 'plan.txt', random(10));
    expect(own.json).toMatchObject({ user_id: owner.id, organization_id: null, size_bytes: 10 });

    const read = await as(memberToken)('GET', path('plan.txt', orgId));
    expect(read.status).toBe(200);
    expect(read.body.equals(bytes)).toBe(true);
    const listed = await as(memberToken)('GET', `/v1/buckets/${bucketId}/objects?organization_id=${orgId}`);
    expect(listed.json.objects.map((o: { key: string; organization_id: string }) => [o.key, o.organization_id])).toEqual([['plan.txt', orgId]]);
    // The member's own listing does not show the organisation's object.
    expect((await as(memberToken)('GET', `/v1/buckets/${bucketId}/objects`)).json.objects).toEqual([]);
    // The secret key reaches it by organisation too.
    const bySecret = await rawRequest(server, 'GET', `/v1/buckets/${bucketId}/objects?organization_id=${orgId}`, { bearer: app.secret_key });
    expect(bySecret.json.objects).toHaveLength(1);

    expect((await as(memberToken)('DELETE', path('plan.txt', orgId))).status).toBe(200);
    expect((await as(ownerToken)('GET', path('plan.txt', orgId))).status).toBe(404);
    expect((await as(ownerToken)('GET', path('plan.txt'))).status).toBe(200);
  });

  it('a non-member, another active organisation, no active organisation and another app: 404, nothing written', async () => {
    const { owner, orgId, ownerToken } = await team();
    expect((await put(ownerToken, 'secret.txt', random(50), orgId)).status).toBe(200);
    const outsider = await orgUser(server, app);
    const otherOrg = await orgOf(server, app, outsider);
    const outsiderToken = await activeToken(server, app, outsider, otherOrg);
    for (const token of [outsiderToken, outsider.token, owner.token /* a member, without it active */]) {
      expect((await as(token)('GET', path('secret.txt', orgId))).status).toBe(404);
      expect((await as(token)('DELETE', path('secret.txt', orgId))).status).toBe(404);
      expect((await put(token, 'intruder.txt', random(5), orgId)).status).toBe(404);
      expect((await as(token)('GET', `/v1/buckets/${bucketId}/objects?organization_id=${orgId}`)).status).toBe(404);
    }
    // Another app's secret key, with this bucket and organisation: 404.
    const other = await createApp(server, { tenantId: app.tenant_id });
    expect((await rawRequest(server, 'GET', path('secret.txt', orgId), { bearer: other.secret_key })).status).toBe(404);
    expect((await putObject(server, other, bucketId, 'x.txt', random(5), { query: `?organization_id=${orgId}` })).status).toBe(404);
    // An unknown organisation through the secret key, and both owners at once.
    expect((await putObject(server, app, bucketId, 'x.txt', random(5), { query: '?organization_id=00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    expect((await putObject(server, app, bucketId, 'x.txt', random(5), { query: `?organization_id=${orgId}&user_id=${owner.id}` })).status).toBe(400);
    const all = await rawRequest(server, 'GET', `/v1/buckets/${bucketId}/objects?organization_id=${orgId}`, { bearer: app.secret_key });
    expect(all.json.objects.map((o: { key: string }) => o.key)).toEqual(['secret.txt']);
  });

  it('a member removed while their token is live is refused at once: read, write, list, delete', async () => {
    const { member, orgId, ownerToken, memberToken } = await team();
    expect((await put(memberToken, 'mine.txt', random(20), orgId)).status).toBe(200);
    expect((await asServer(server, app)('DELETE', `/v1/organizations/${orgId}/members/${member.id}`)).status).toBe(200);
    expect((await as(memberToken)('GET', path('mine.txt', orgId))).status).toBe(404);
    expect((await put(memberToken, 'after.txt', random(20), orgId)).status).toBe(404);
    expect((await as(memberToken)('GET', `/v1/buckets/${bucketId}/objects?organization_id=${orgId}`)).json.objects).toEqual([]);
    expect((await as(memberToken)('DELETE', path('mine.txt', orgId))).status).toBe(404);
    expect((await as(ownerToken)('GET', path('mine.txt', orgId))).status).toBe(200);
    expect((await as(ownerToken)('GET', path('after.txt', orgId))).status).toBe(404);
  });

  it('max_size_bytes_per_org: of 10 concurrent 300-byte uploads by members into 1000 bytes exactly 3 land; users keep their own cap', async () => {
    const capped = await createBucket(server, app, undefined, { max_size_bytes_per_org: 1000, max_size_bytes_per_user: 100 });
    const shown = await api(server, 'GET', `/v1/buckets/${capped.bucket_id}`, { bearer: app.secret_key });
    expect(shown.body).toMatchObject({ max_size_bytes_per_org: 1000, max_size_bytes_per_user: 100 });
    const { orgId, ownerToken, memberToken } = await team();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => put(i % 2 ? ownerToken : memberToken, `race/${i}`, random(300), orgId, capped.bucket_id)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 200, 200, 413, 413, 413, 413, 413, 413, 413]);
    expect(results.find((r) => r.status === 413)!.json.detail).toMatch(/max_size_bytes_per_org/);
    const bucket = await api(server, 'GET', `/v1/buckets/${capped.bucket_id}`, { bearer: app.secret_key });
    expect(bucket.body).toMatchObject({ used_bytes: 900, object_count: 3 });
    // 100 bytes still fit the organisation; 101 do not. The per-user cap (100) is the user's own objects'.
    expect((await put(ownerToken, 'fill', random(100), orgId, capped.bucket_id)).status).toBe(200);
    expect((await put(ownerToken, 'over', random(1), orgId, capped.bucket_id)).status).toBe(413);
    expect((await put(ownerToken, 'own', random(100), undefined, capped.bucket_id)).status).toBe(200);
    expect((await put(ownerToken, 'own2', random(1), undefined, capped.bucket_id)).json.detail).toMatch(/max_size_bytes_per_user/);
    // Another organisation has its own 1000 bytes.
    const second = await team();
    expect((await put(second.ownerToken, 'other', random(1000), second.orgId, capped.bucket_id)).status).toBe(200);
  });

  it('deleting the organisation makes its objects unreachable at once, for the secret key too', async () => {
    const { owner, orgId, ownerToken } = await team();
    expect((await put(ownerToken, 'doc.txt', random(40), orgId)).status).toBe(200);
    expect((await api(server, 'DELETE', `/v1/organizations/${orgId}`, { publishableKey: app.publishable_key, bearer: owner.token })).status).toBe(200);
    expect((await as(ownerToken)('GET', path('doc.txt', orgId))).status).toBe(404);
    expect((await rawRequest(server, 'GET', path('doc.txt', orgId), { bearer: app.secret_key })).status).toBe(404);
    expect((await putObject(server, app, bucketId, 'new.txt', random(5), { query: `?organization_id=${orgId}` })).status).toBe(404);
  });
});
