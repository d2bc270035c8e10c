import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manage, type ConsoleUser } from '../helpers/console.js';
import { checkView, fill, press, signInInConsole, sharedConsole, view, type ConsoleSite, ownerViewerAndApp, openSignedIn, closeClean } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, "Tables": an app's custom tables in the console, driven as a person does, each write read
// back through the API with the member's console session and X-App-Id. An owner creates a table, adds a
// column and a row, edits and deletes it, pages 30 rows by keyset and filters them; a viewer sees the grid
// and the filters with no write control.

const skip = skipReason();
let site: ConsoleSite;
let owner: ConsoleUser;
let viewer: ConsoleUser;
let tenantId: string;
let appId: string;
let ordersId: string;

beforeAll(async () => {
  if (skip) return;
  site = await sharedConsole();
  ({ owner, viewer, tenantId, appId } = await ownerViewerAndApp(site));
  const orders = await manage(site.env.server, owner.token, 'POST', '/v1/tables', { name: 'orders', columns: [{ name: 'item', type: 'text' }, { name: 'qty', type: 'int' }] }, appId);
  expect(orders.status, JSON.stringify(orders.body)).toBe(201);
  ordersId = orders.body.table_id;
  // 30 rows: more than one page of 25.
  for (let i = 0; i < 30; i++) {
    const row = await manage(site.env.server, owner.token, 'POST', `/v1/tables/${ordersId}/rows`, { data: { item: `item-${i}`, qty: i } }, appId);
    expect(row.status, JSON.stringify(row.body)).toBe(201);
  }
}, 240_000);
afterAll(async () => {
  await site?.stop();
});

const url = (path: string) => new URL(`/console/t/${tenantId}/apps/${appId}/tables${path}`, site.setupUrl).href;
const tables = async () => (await manage(site.env.server, owner.token, 'GET', '/v1/tables', undefined, appId)).body.tables as { table_id: string; name: string; columns: { name: string; type: string; required: boolean; default_value: unknown }[] }[];
const rowsOf = async (tableId: string) => (await manage(site.env.server, owner.token, 'POST', `/v1/tables/${tableId}/rows/query`, {}, appId)).body.rows as { row_id: string; data: Record<string, unknown> }[];

describe.skipIf(skip)('the console, tables of an app', () => {
  it('an owner creates a table, adds a column and a row, edits and deletes it, pages and filters rows, deletes the table', { timeout: 300_000 }, async () => {
    const { context, page } = await openSignedIn(site, url(''), owner.email);
    await view(page, 'Tables');
    await page.getByRole('table', { name: 'Tables: 1' }).waitFor();
    await checkView(page, 'tables');

    // A new table with two columns.
    await fill(page, 'Table name', 'notes');
    await fill(page, 'Column 1 name', 'title');
    await page.getByLabel('Column 1 required').check();
    await press(page, 'Add another column');
    await fill(page, 'Column 2 name', 'done');
    await page.getByLabel('Column 2 type').selectOption('bool');
    await press(page, 'Create table');
    await page.getByRole('status').filter({ hasText: 'Created the table notes.' }).waitFor();
    await page.getByRole('table', { name: 'Tables: 2' }).waitFor();
    const notes = (await tables()).find((t) => t.name === 'notes')!;
    expect(notes.columns.map((c) => [c.name, c.type, c.required])).toEqual([
      ['title', 'text', true],
      ['done', 'bool', false],
    ]);

    // Its page: a column with a default, then a row.
    await page.getByRole('link', { name: 'notes', exact: true }).click();
    await view(page, 'Table');
    await fill(page, 'Column name', 'stars');
    await page.getByLabel('Column type').selectOption('int');
    await fill(page, 'Default value (optional)', '3');
    await press(page, 'Add column');
    await page.getByRole('status').filter({ hasText: 'Added the column stars.' }).waitFor();
    expect((await tables()).find((t) => t.name === 'notes')!.columns.find((c) => c.name === 'stars')).toMatchObject({ type: 'int', default_value: 3 });
    await fill(page, 'New title (required)', 'first note');
    await page.getByLabel('New done').selectOption('true');
    await press(page, 'Add row');
    await page.getByRole('status').filter({ hasText: 'Added the row.' }).waitFor();
    await page.getByRole('cell', { name: 'first note' }).waitFor();
    let rows = await rowsOf(notes.table_id);
    expect(rows.map((r) => r.data)).toEqual([{ title: 'first note', done: true, stars: 3 }]);
    const short = rows[0]!.row_id.slice(0, 8);
    // A wrong type: the server's 400, shown with its code.
    await fill(page, 'New title (required)', 'second');
    await fill(page, 'New stars', 'many');
    await press(page, 'Add row');
    const problem = page.getByRole('alert');
    await problem.waitFor();
    expect(await problem.textContent()).toMatch(/^Stars: .+Error code: validation_failed \(HTTP 400\)$/);
    expect(await rowsOf(notes.table_id)).toHaveLength(1);

    // Edit: only the changed field is sent and kept.
    await press(page, `Edit row ${short}`);
    await fill(page, 'Edit title (required)', 'changed note');
    await fill(page, 'Edit stars', '5');
    await press(page, 'Save row');
    await page.getByRole('status').filter({ hasText: 'Saved the row.' }).waitFor();
    await page.getByRole('cell', { name: 'changed note' }).waitFor();
    rows = await rowsOf(notes.table_id);
    expect(rows.map((r) => r.data)).toEqual([{ title: 'changed note', done: true, stars: 5 }]);

    // Delete, after confirming.
    await press(page, `Delete row ${short}`);
    await press(page, 'Delete the row');
    await page.getByRole('status').filter({ hasText: 'Deleted the row.' }).waitFor();
    expect(await rowsOf(notes.table_id)).toEqual([]);

    // 30 rows of the fixture: a page of 25, then 5 by keyset, the cursor in the address.
    await page.goto(url(`/${ordersId}`));
    await signInInConsole(page, owner.email);
    await view(page, 'Table');
    const grid = page.getByRole('table', { name: /^Rows/ });
    await page.getByRole('table', { name: 'Rows: 25 on this page' }).waitFor();
    expect(await grid.getByRole('row').nth(1).textContent()).toContain('item-0');
    await checkView(page, 'table');
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByRole('table', { name: 'Rows: 5 on this page (a later page)' }).waitFor();
    expect(new URL(page.url()).searchParams.get('cursor')).toBeTruthy();
    expect(await grid.getByRole('row').nth(1).textContent()).toContain('item-25');
    expect(await page.getByRole('link', { name: 'Next page' }).count()).toBe(0);
    await page.getByRole('link', { name: 'First page' }).click();
    await page.getByRole('table', { name: 'Rows: 25 on this page' }).waitFor();

    // Filters: qty at least 20, then also the item containing 5; kept in the address.
    await press(page, 'Add a condition');
    await page.getByLabel('Condition 1 column').selectOption('qty');
    await page.getByLabel('Condition 1 operator').selectOption('gte');
    await fill(page, 'Condition 1 value', '20');
    await press(page, 'Apply filters');
    await page.getByRole('table', { name: 'Rows matching the filters: 10 on this page' }).waitFor();
    expect(JSON.parse(new URL(page.url()).searchParams.get('where')!)).toEqual([{ field: 'qty', op: 'gte', value: '20' }]);
    await press(page, 'Add a condition');
    await page.getByLabel('Condition 2 column').selectOption('item');
    await page.getByLabel('Condition 2 operator').selectOption('contains');
    await fill(page, 'Condition 2 value', '5');
    await press(page, 'Apply filters');
    await page.getByRole('table', { name: 'Rows matching the filters: 1 on this page' }).waitFor();
    expect(await grid.getByRole('row').nth(1).textContent()).toContain('item-25');
    await checkView(page, 'table-filtered');
    await page.reload();
    await signInInConsole(page, owner.email);
    await page.getByRole('table', { name: 'Rows matching the filters: 1 on this page' }).waitFor();
    await press(page, 'Clear filters');
    await page.getByRole('table', { name: 'Rows: 25 on this page' }).waitFor();

    // Delete the notes table: its name typed.
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Tables' }).click();
    await view(page, 'Tables');
    await page.getByLabel('Table to delete').selectOption({ label: 'notes' });
    await fill(page, 'Type notes to confirm', 'notes');
    await press(page, 'Delete the table notes');
    await page.getByRole('status').filter({ hasText: 'Deleted the table notes.' }).waitFor();
    await page.getByRole('table', { name: 'Tables: 1' }).waitFor();
    expect((await tables()).map((t) => t.name)).toEqual(['orders']);

    await closeClean(site, context);
  });

  it('a viewer sees the tables, the grid and the filters, and no write control', { timeout: 180_000 }, async () => {
    const { context, page } = await openSignedIn(site, url(''), viewer.email);
    await view(page, 'Tables');
    await page.getByRole('link', { name: 'orders' }).click();
    await view(page, 'Table');
    await page.getByRole('table', { name: 'Rows: 25 on this page' }).waitFor();
    const main = page.getByRole('main');
    for (const name of ['Add row', 'Add column', 'Edit row', 'Delete row']) expect(await main.getByRole('button', { name }).count(), name).toBe(0);
    // The filters read (POST .../rows/query is a viewer's), so they stay.
    await press(page, 'Add a condition');
    await page.getByLabel('Condition 1 column').selectOption('qty');
    await page.getByLabel('Condition 1 operator').selectOption('lt');
    await fill(page, 'Condition 1 value', '3');
    await press(page, 'Apply filters');
    await page.getByRole('table', { name: 'Rows matching the filters: 3 on this page' }).waitFor();
    expect(await main.getByRole('textbox').count()).toBe(1); // the filter's value only
    await checkView(page, 'table-viewer');
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Tables' }).click();
    await view(page, 'Tables');
    await page.getByRole('table', { name: /^Tables: \d+$/ }).waitFor();
    expect(await main.getByRole('button').count()).toBe(0);
    expect(await main.getByRole('textbox').count()).toBe(0);
    expect(await main.getByRole('combobox').count()).toBe(0);
    await context.close();
  });
});
