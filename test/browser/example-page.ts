import { randomBytes } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { crc32, deflateSync } from 'node:zlib';
import type { BrowserContext, Page } from 'playwright-core';
import { expect } from 'vitest';
import { codeFor } from '../helpers/accounts.js';
import { RESULTS_DIR, type Sites } from './harness.js';

// Driving the example app (examples/web) as a person does: open it, click a button named for people, read
// the message it shows. Shared by the browser suite's example-app files.

/** A full-page screenshot in test-results/, and in docs/ (the README's pictures) with UPDATE_SCREENSHOTS=1. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS_DIR, { recursive: true });
  await page.screenshot({ path: join(RESULTS_DIR, name), fullPage: true });
  if (process.env.UPDATE_SCREENSHOTS === '1') await page.screenshot({ path: join(resolve(import.meta.dirname, '../../docs'), name), fullPage: true });
}

/** Opens the app and waits until it has drawn its first view. */
export async function open(context: BrowserContext, url: string): Promise<Page> {
  const page = await context.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="true"]');
  return page;
}

/** Clicks and waits for the message the action ends with; answers its state ('ok' or 'error') and text. */
export async function act(page: Page, selector: string): Promise<{ state: string; text: string }> {
  await page.click(selector);
  await page.waitForSelector('#notice[data-state="ok"], #notice[data-state="error"]', { timeout: 30_000 });
  return { state: (await page.getAttribute('#notice', 'data-state'))!, text: (await page.textContent('#notice'))! };
}

/** Waits for the signed-in view showing `email`. */
export async function signedInAs(page: Page, email: string): Promise<void> {
  await page.waitForFunction((e) => document.body.dataset.view === 'signed-in' && document.body.dataset.loaded === 'true' && document.getElementById('profile-email')?.textContent === e, email, { timeout: 30_000 });
}

export async function signedOut(page: Page): Promise<void> {
  await page.waitForFunction(() => document.body.dataset.view === 'signed-out', undefined, { timeout: 30_000 });
}

/** "Create account", then the emailed code: a verified, signed-in person. */
export async function signUpAndConfirm(sites: Sites, page: Page, email: string, password = 'correct horse battery'): Promise<void> {
  await page.fill('#email', email);
  await page.fill('#password', password);
  expect(await act(page, '#sign-up')).toMatchObject({ state: 'ok' });
  await page.fill('#code', await codeFor(sites.env.sink, email));
  expect(await act(page, '#use-code')).toEqual({ state: 'ok', text: 'Your email is confirmed. Welcome!' });
  await signedInAs(page, email);
}

/** Signs in with a password in the signed-out view. */
export async function signIn(page: Page, email: string, password: string): Promise<{ state: string; text: string }> {
  await page.fill('#email', email);
  await page.fill('#password', password);
  return act(page, '#sign-in');
}

/** Nothing a token looks like anywhere a script or a person could read it: the page, storage, cookies visible to JS. */
export async function expectNoTokenInPage(page: Page): Promise<void> {
  const seen = await page.evaluate(() => [document.documentElement.outerHTML, document.cookie, JSON.stringify({ ...localStorage }), JSON.stringify({ ...sessionStorage })].join('\n'));
  expect(seen).not.toMatch(/eyJ[\w-]{10,}\.|rt_[\w-]{20,}|sso_[\w-]{20,}/);
}

/**
 * A real PNG: random pixels (incompressible, about 3 x side² bytes, so an upload takes a while) or, for a
 * screenshot, a soft gradient.
 */
export function png(side: number, look: 'noise' | 'gradient' = 'noise'): Buffer {
  const chunk = (type: string, data: Buffer) => {
    const head = Buffer.alloc(8);
    head.writeUInt32BE(data.length, 0);
    head.write(type, 4, 'latin1');
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])) >>> 0, 0);
    return Buffer.concat([head, data, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(side, 0);
  header.writeUInt32BE(side, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const pixels = (y: number) =>
    look === 'noise' ? randomBytes(side * 3) : Buffer.from(Array.from({ length: side }, (_, x) => [80 + (100 * x) / side, 140 + (80 * y) / side, 235]).flat());
  const rows = Buffer.concat(Array.from({ length: side }, (_, y) => Buffer.concat([Buffer.from([0]), pixels(y)])));
  return Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), chunk('IHDR', header), chunk('IDAT', deflateSync(rows)), chunk('IEND', Buffer.alloc(0))]);
}
