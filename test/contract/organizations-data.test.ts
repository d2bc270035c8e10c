import { beforeAll, describe, expect, it } from 'vitest';
import { activeToken, asServer, asUser, orgOf, orgUser } from '../helpers/organizations.js';
import { useServerApp } from '../helpers/private-app.js';
import { makeTable } from '../helpers/tables.js';

// Issue 52 (docs/organizations.md): rows of an organisation. Members read and write them while it is their
// session's active organisation; its queries see its rows only; non-members, another active organisation and
// a member removed a moment ago get 404 (the gate is inside the statement); the secret key sees everything.

const { server, app } = useServerApp({ RATE_LIMITS: '' });
let tableId: string;

beforeAll(async () => {
  tableId = (await makeTable(server, { bearer: app.secret_key }, [{ name: 'title', type: 'text' }])).table_id as string;
});

const as = (token: string) => asUser(server, app, { token });
const titles = (res: { body: { rows: { data: { title?: string } }[] } }) => res.body.rows.map((r) => r.data.title).sort();

describe('rows of an organisation', () => {
  it('members write and read them with it active; queries see its rows only; without it, their own rows as before', async () => {
    const owner = await orgUser(server, app);
    const plain = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    await asServer(server, app)('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' });
    const ownerOrg = as(await activeToken(server, app, owner, orgId));
    const plainOrg = as(await activeToken(server, app, plain, orgId));

    const shared = await ownerOrg('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'shared' }, organization_id: orgId });
    expect(shared.status, JSON.stringify(shared.body)).toBe(201);
    expect(shared.body).toMatchObject({ organization_id: orgId, user_id: null, created_by: owner.id });
    const mine = await as(owner.token)('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'mine' } });
    expect(mine.body).toMatchObject({ user_id: owner.id, organization_id: null, created_by: owner.id });

    const read = await plainOrg('GET', `/v1/tables/${tableId}/rows/${shared.body.row_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ data: { title: 'shared' }, organization_id: orgId, created_by: owner.id });
    const edited = await plainOrg('PATCH', `/v1/tables/${tableId}/rows/${shared.body.row_id}`, { data: { title: 'shared, edited' } });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({ organization_id: orgId, created_by: owner.id });
    await plainOrg('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'by plain' }, organization_id: orgId });

    expect(titles(await ownerOrg('POST', `/v1/tables/${tableId}/rows/query`, {}))).toEqual(['by plain', 'shared, edited']);
    // The same user without the organisation active: their own rows only, as before.
    expect(titles(await as(await activeToken(server, app, owner, null))('POST', `/v1/tables/${tableId}/rows/query`, {}))).toEqual(['mine']);
    // The secret key sees every row, with the owner fields.
    const all = await asServer(server, app)('POST', `/v1/tables/${tableId}/rows/query`, { limit: 100 });
    expect(all.body.rows.filter((r: { organization_id: string | null }) => r.organization_id === orgId)).toHaveLength(2);
  });

  it('a non-member, another active organisation and an organisation_id not active: 404, nothing written', async () => {
    const owner = await orgUser(server, app);
    const outsider = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    const otherOrg = await orgOf(server, app, outsider);
    const row = await as(await activeToken(server, app, owner, orgId))('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'private' }, organization_id: orgId });
    const outsiderOrg = as(await activeToken(server, app, outsider, otherOrg));
    expect((await outsiderOrg('GET', `/v1/tables/${tableId}/rows/${row.body.row_id}`)).status).toBe(404);
    expect((await outsiderOrg('PATCH', `/v1/tables/${tableId}/rows/${row.body.row_id}`, { data: { title: 'x' } })).status).toBe(404);
    expect((await outsiderOrg('DELETE', `/v1/tables/${tableId}/rows/${row.body.row_id}`)).status).toBe(404);
    expect((await outsiderOrg('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'intruder' }, organization_id: orgId })).status).toBe(404);
    expect(titles(await outsiderOrg('POST', `/v1/tables/${tableId}/rows/query`, {}))).toEqual([]);
    // organization_id without it active: 404.
    expect((await as(owner.token)('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'x' }, organization_id: orgId })).status).toBe(404);
    // The secret key may write an organisation's row; an unknown organisation is 404; both owners at once 400.
    expect((await asServer(server, app)('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'server' }, organization_id: orgId })).body).toMatchObject({ organization_id: orgId, created_by: null });
    expect((await asServer(server, app)('POST', `/v1/tables/${tableId}/rows`, { data: {}, organization_id: '00000000-0000-4000-8000-000000000000' })).status).toBe(404);
    expect((await asServer(server, app)('POST', `/v1/tables/${tableId}/rows`, { data: {}, organization_id: orgId, user_id: owner.id })).status).toBe(400);
    expect(titles(await as(await activeToken(server, app, owner, orgId))('POST', `/v1/tables/${tableId}/rows/query`, {}))).toEqual(['private', 'server']);
  });

  it('a member removed while their token is live is refused at once: read, write, query', async () => {
    const owner = await orgUser(server, app);
    const plain = await orgUser(server, app);
    const orgId = await orgOf(server, app, owner);
    await asServer(server, app)('POST', `/v1/organizations/${orgId}/members`, { user_id: plain.id, role: 'member' });
    const plainOrg = as(await activeToken(server, app, plain, orgId));
    const row = await plainOrg('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'before' }, organization_id: orgId });
    expect(row.status).toBe(201);
    expect((await asServer(server, app)('DELETE', `/v1/organizations/${orgId}/members/${plain.id}`)).status).toBe(200);
    expect((await plainOrg('GET', `/v1/tables/${tableId}/rows/${row.body.row_id}`)).status).toBe(404);
    expect((await plainOrg('PATCH', `/v1/tables/${tableId}/rows/${row.body.row_id}`, { data: { title: 'after' } })).status).toBe(404);
    expect((await plainOrg('DELETE', `/v1/tables/${tableId}/rows/${row.body.row_id}`)).status).toBe(404);
    expect((await plainOrg('POST', `/v1/tables/${tableId}/rows`, { data: { title: 'after' }, organization_id: orgId })).status).toBe(404);
    expect(titles(await plainOrg('POST', `/v1/tables/${tableId}/rows/query`, {}))).toEqual([]);
    expect((await as(await activeToken(server, app, owner, orgId))('GET', `/v1/tables/${tableId}/rows/${row.body.row_id}`)).body.data).toEqual({ title: 'before' });
  });
});
