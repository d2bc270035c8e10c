import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { iso, type Clock } from '../../src/clock.js';
import { createApp, createTenant, findApp } from '../../src/services/apps/apps.js';
import { createInvitation } from '../../src/services/organizations/invitations.js';
import { addMember } from '../../src/services/organizations/members.js';
import { createOrganization, deleteOrganization } from '../../src/services/organizations/organizations.js';
import { purgeDeletedOrganizations } from '../../src/services/organizations/purge.js';
import { createRow, tableStorage } from '../../src/services/tables/rows.js';
import { createTable } from '../../src/services/tables/schema.js';
import { insertUser } from '../../src/store/repos/users.js';
import { useInProcess } from '../helpers/in-process.js';
import { Readable } from 'node:stream';
import { join } from 'node:path';
import { createBucket, getBucket } from '../../src/services/objects/buckets.js';
import { organizationOwner, putObject } from '../../src/services/objects/objects.js';
import { findAppUsage } from '../../src/store/repos/object-usage.js';

// The store suite for organisations (docs/organizations.md): the purge of a deleted organisation, in process
// on the run's database, in batches of one row so that every batch statement runs more than once: its
// memberships (each user's count of organisations goes down), invitations, rows (the app's table storage
// freed) and objects (every byte counter freed, the blobs deleted), then its row.
const now = new Date('2026-04-01T00:00:00.000Z');
const clock: Clock = { now: () => now };

const { deps, appsDeps } = useInProcess(clock, (dir) => ({ BLOB_STORE: `file:${join(dir, 'blobs')}` }));

async function user(appId: string): Promise<string> {
  const id = randomUUID();
  await insertUser(deps.db, { id, app_id: appId, email: `${id}@example.com`, email_normalized: `${id}@example.com`, email_verified: 1, password_hash: null, is_bot: 0, public_key: null, created_at: iso(now), updated_at: iso(now) });
  return id;
}

describe('store: the purge of a deleted organisation', () => {
  it('removes memberships, invitations, rows and objects in batches, frees the counters, then the organisation', async () => {
    const tenant = await createTenant(appsDeps(), 'T');
    const view = await createApp(appsDeps(), tenant.tenant_id, 'A', { allowedOrigins: ['https://app.example.com'] });
    const app = (await findApp(deps, view.app_id))!;
    const [owner, second, third] = [await user(app.id), await user(app.id), await user(app.id)];
    const org = await createOrganization(deps, app, { type: 'secret_key' }, { name: 'Doomed', ownerUserId: owner });
    const kept = await createOrganization(deps, app, { type: 'secret_key' }, { name: 'Kept', ownerUserId: owner });
    await addMember(deps, app, org.organization_id, { userId: second, role: 'member' });
    await addMember(deps, app, org.organization_id, { userId: third, role: 'admin' });
    for (const n of [1, 2]) await createInvitation(deps, app, { type: 'secret_key' }, org.organization_id, { email: `invitee${n}@example.com`, role: 'member' });
    const table = await createTable(deps, app.id, { name: 'notes', columns: [{ name: 'title', type: 'text' }] });
    for (const title of ['a', 'b', 'c']) await createRow(deps, app.id, table.table_id, { kind: 'secret' }, { data: { title }, organization_id: org.organization_id });
    await createRow(deps, app.id, table.table_id, { kind: 'secret' }, { data: { title: 'kept' }, organization_id: kept.organization_id });
    const before = (await tableStorage(deps, app.id)).used_bytes;
    const bucket = await createBucket(deps, app.id, 'files');
    const put = (orgId: string, key: string, size: number) =>
      putObject(deps, { appId: app.id, bucketId: bucket.id, key, ...organizationOwner(orgId) }, { contentType: 'text/plain', size, body: Readable.from([Buffer.alloc(size, 1)]) });
    for (const key of ['x', 'y', 'z']) await put(org.organization_id, key, 100);
    await put(kept.organization_id, 'x', 7);
    expect(await findAppUsage(deps.db, app.id)).toBe(307);

    await deleteOrganization(deps, app, { type: 'secret_key' }, org.organization_id);
    const purged = await purgeDeletedOrganizations(deps, 1);
    expect(purged).toEqual([{ organization_id: org.organization_id, removed: { memberships: 3, invitations: 2, rows: 3, objects: 3 } }]);

    expect(await deps.db.selectFrom('organizations').select('id').where('id', '=', org.organization_id).execute()).toEqual([]);
    expect(await deps.db.selectFrom('organization_members').select('user_id').where('organization_id', '=', org.organization_id).execute()).toEqual([]);
    expect(await deps.db.selectFrom('organization_invitations').select('id').where('organization_id', '=', org.organization_id).execute()).toEqual([]);
    const counts = await deps.db.selectFrom('organization_user_counts').select(['user_id', 'organizations']).where('app_id', '=', app.id).orderBy('user_id').execute();
    expect(Object.fromEntries(counts.map((c) => [c.user_id, Number(c.organizations)]))).toEqual({ [owner]: 1, [second]: 0, [third]: 0 });
    const after = (await tableStorage(deps, app.id)).used_bytes;
    expect(after).toBeLessThan(before);
    expect(after).toBeGreaterThan(0);
    // Every byte counter gave the organisation's objects back; the kept organisation's object stays.
    expect(await findAppUsage(deps.db, app.id)).toBe(7);
    expect(await getBucket(deps, app.id, bucket.id)).toMatchObject({ usedBytes: 7, objectCount: 1 });
    const usage = await deps.db.selectFrom('bucket_user_usage').select(['user_id', 'used_bytes']).where('bucket_id', '=', bucket.id).execute();
    expect(usage.map((u) => [u.user_id, Number(u.used_bytes)])).toEqual([[`org:${kept.organization_id}`, 7]]);
    expect(await deps.db.selectFrom('objects').select('key').where('owner', '=', `org:${org.organization_id}`).execute()).toEqual([]);
    expect(await deps.db.selectFrom('blob_deletions').select('blob_id').where('app_id', '=', app.id).execute()).toEqual([]);
    // Nothing left to purge: the next run does nothing.
    expect(await purgeDeletedOrganizations(deps, 1)).toEqual([]);
  });
});
