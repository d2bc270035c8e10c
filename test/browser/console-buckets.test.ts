import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manage, type ConsoleUser } from '../helpers/console.js';
import { checkView, fill, press, sharedConsole, view, type ConsoleSite, ownerViewerAndApp, openSignedIn, closeClean } from './console-page.js';
import { skipReason } from './harness.js';

// docs/console.md, "Buckets": an app's buckets and objects in the console, driven as a person does, each write
// read back through the API with the member's console session and X-App-Id. An owner creates a bucket, uploads
// a file (the progress bar reaching 100 %), downloads it (the same bytes), deletes it, pages 26 objects by
// keyset and deletes the bucket; a viewer lists and downloads with no write control.

const skip = skipReason();
let site: ConsoleSite;
let owner: ConsoleUser;
let viewer: ConsoleUser;
let tenantId: string;
let appId: string;
let photosId: string;

/** The bytes of an object through the API (the owner's console session). */
async function objectBytes(bucketId: string, key: string): Promise<{ status: number; body: Buffer; type: string | null }> {
  const answer = await fetch(`${site.env.server.url}/v1/buckets/${bucketId}/objects/${key}`, { headers: { authorization: `Bearer ${owner.token}`, 'x-app-id': appId } });
  return { status: answer.status, body: Buffer.from(await answer.arrayBuffer()), type: answer.headers.get('content-type') };
}

beforeAll(async () => {
  if (skip) return;
  site = await sharedConsole();
  ({ owner, viewer, tenantId, appId } = await ownerViewerAndApp(site));
  const photos = await manage(site.env.server, owner.token, 'POST', '/v1/buckets', { name: 'photos' }, appId);
  expect(photos.status, JSON.stringify(photos.body)).toBe(201);
  photosId = photos.body.bucket_id;
  // 26 objects: more than one page of 25.
  for (let i = 0; i < 26; i++) {
    const key = `img/${String(i).padStart(2, '0')}.txt`;
    const put = await fetch(`${site.env.server.url}/v1/buckets/${photosId}/objects/${key}`, { method: 'PUT', headers: { authorization: `Bearer ${owner.token}`, 'x-app-id': appId, 'content-type': 'text/plain' }, body: `photo ${i}` });
    expect(put.status, await put.text()).toBe(200);
  }
}, 240_000);
afterAll(async () => {
  await site?.stop();
});

const url = (path: string) => new URL(`/console/t/${tenantId}/apps/${appId}/buckets${path}`, site.setupUrl).href;
const bucketNames = async () => ((await manage(site.env.server, owner.token, 'GET', '/v1/buckets', undefined, appId)).body.buckets as { name: string }[]).map((b) => b.name);

describe.skipIf(skip)('the console, buckets of an app', () => {
  it('an owner creates a bucket, uploads, downloads and deletes a file, pages objects and deletes the bucket', { timeout: 300_000 }, async () => {
    const { context, page } = await openSignedIn(site, url(''), owner.email);
    await view(page, 'Buckets');
    await page.getByRole('table', { name: 'Buckets: 1' }).waitFor();
    await checkView(page, 'buckets');

    // A bad name: the server's 400 with its code, nothing made. Then a good one.
    await fill(page, 'Bucket name', 'Bad Name');
    await press(page, 'Create bucket');
    await page.getByRole('alert').waitFor();
    expect(await page.getByRole('alert').textContent()).toMatch(/Error code: validation_failed \(HTTP 400\)$/);
    expect(await bucketNames()).toEqual(['photos']);
    await fill(page, 'Bucket name', 'docs');
    await press(page, 'Create bucket');
    await page.getByRole('status').filter({ hasText: 'Created the bucket docs.' }).waitFor();
    expect((await bucketNames()).sort()).toEqual(['docs', 'photos']);
    const docsId = ((await manage(site.env.server, owner.token, 'GET', '/v1/buckets', undefined, appId)).body.buckets as { name: string; bucket_id: string }[]).find((b) => b.name === 'docs')!.bucket_id;

    // Upload 3 MB: the progress bar follows it to 100 %, the object holds the same bytes and type.
    await page.getByRole('link', { name: 'docs', exact: true }).click();
    await view(page, 'Bucket');
    const bytes = randomBytes(3 * 1024 * 1024);
    await page.getByLabel('File', { exact: true }).setInputFiles({ name: 'report.pdf', mimeType: 'application/pdf', buffer: bytes });
    await press(page, 'Upload');
    await page.getByRole('status').filter({ hasText: 'Uploaded report.pdf (3.0 MiB, application/pdf).' }).waitFor();
    const progress = await page.getByRole('progressbar').evaluate((el: HTMLProgressElement) => ({ value: el.value, max: el.max, label: el.labels[0]?.textContent }));
    expect(progress).toEqual({ value: 100, max: 100, label: 'Upload progress' });
    expect(await page.getByText('100 % sent').count()).toBe(1);
    await page.getByRole('cell', { name: 'report.pdf', exact: true }).waitFor();
    const stored = await objectBytes(docsId, 'report.pdf');
    expect(stored.status).toBe(200);
    expect(stored.type).toBe('application/pdf');
    expect(stored.body.equals(bytes)).toBe(true);
    await checkView(page, 'bucket');

    // Download: the browser saves the same bytes under the key's name.
    const saving = page.waitForEvent('download');
    await press(page, 'Download report.pdf');
    const saved = await saving;
    expect(saved.suggestedFilename()).toBe('report.pdf');
    expect((await readFile((await saved.path())!)).equals(bytes)).toBe(true);

    // Delete, after confirming: gone through the API.
    await press(page, 'Delete report.pdf');
    await press(page, 'Delete the object');
    await page.getByRole('status').filter({ hasText: 'Deleted report.pdf.' }).waitFor();
    await page.getByRole('table', { name: 'Objects: 0 on this page' }).waitFor();
    expect((await objectBytes(docsId, 'report.pdf')).status).toBe(404);

    // 26 objects: 25, then 1 by keyset, the cursor in the address.
    await page.getByRole('link', { name: 'Buckets', exact: true }).first().click();
    await view(page, 'Buckets');
    await page.getByRole('link', { name: 'photos', exact: true }).click();
    await view(page, 'Bucket');
    await page.getByRole('table', { name: 'Objects: 25 on this page' }).waitFor();
    expect(await page.getByRole('cell', { name: 'img/00.txt', exact: true }).count()).toBe(1);
    await page.getByRole('link', { name: 'Next page' }).click();
    await page.getByRole('table', { name: 'Objects: 1 on this page (a later page)' }).waitFor();
    expect(new URL(page.url()).searchParams.get('cursor')).toBeTruthy();
    expect(await page.getByRole('cell', { name: 'img/25.txt', exact: true }).count()).toBe(1);
    await page.getByRole('link', { name: 'First page' }).click();
    await page.getByRole('table', { name: 'Objects: 25 on this page' }).waitFor();

    // Delete the docs bucket: its name typed.
    await page.getByRole('navigation', { name: 'App' }).getByRole('link', { name: 'Buckets' }).click();
    await view(page, 'Buckets');
    await page.getByLabel('Bucket to delete').selectOption({ label: 'docs' });
    await fill(page, 'Type docs to confirm', 'docs');
    await press(page, 'Delete the bucket docs');
    await page.getByRole('status').filter({ hasText: 'Deleted the bucket docs.' }).waitFor();
    await page.getByRole('table', { name: 'Buckets: 1' }).waitFor();
    expect(await bucketNames()).toEqual(['photos']);

    await closeClean(site, context);
  });

  it('a viewer lists buckets and objects and downloads one, with no write control', { timeout: 180_000 }, async () => {
    const { context, page } = await openSignedIn(site, url(''), viewer.email);
    await view(page, 'Buckets');
    await page.getByRole('table', { name: /^Buckets: \d+$/ }).waitFor();
    const main = page.getByRole('main');
    expect(await main.getByRole('button').count()).toBe(0);
    expect(await main.getByRole('textbox').count()).toBe(0);
    expect(await main.getByRole('combobox').count()).toBe(0);
    await page.getByRole('link', { name: 'photos', exact: true }).click();
    await view(page, 'Bucket');
    await page.getByRole('table', { name: 'Objects: 25 on this page' }).waitFor();
    expect(await main.getByRole('button', { name: /^Delete/ }).count()).toBe(0);
    expect(await main.getByRole('button', { name: 'Upload' }).count()).toBe(0);
    expect(await main.locator('input').count()).toBe(0);
    const saving = page.waitForEvent('download');
    await press(page, 'Download img/03.txt');
    expect(await readFile((await (await saving).path())!, 'utf8')).toBe('photo 3');
    await checkView(page, 'bucket-viewer');
    await context.close();
  });
});
