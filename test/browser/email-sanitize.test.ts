import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { build } from 'rolldown';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { skipReason } from './harness.js';
import { contextsOf, workerBrowser } from './worker-browser.js';

// console/src/pages/email/sanitize.ts (htmlparser2 bundled in), the drawing of an email's HTML part under the console's CSP, in
// Chromium (DOMParser, CSSOM and constructed sheets are the browser's; node has none): the module bundled as
// the console's build bundles it, on a page served with the console's own Content-Security-Policy header.
// What a reader of the preview would check: nothing runs, nothing is fetched, no CSP violation, the email's
// styles are drawn (computed) inside its shadow root and reach nothing outside it.

const skip = skipReason();
let server: Server;
let origin: string;
let context: BrowserContext;
let page: Page;
let contexts: ReturnType<typeof contextsOf> | undefined;

beforeAll(async () => {
  if (skip) return;
  const { CONSOLE_CSP } = (await import(/* @vite-ignore */ new URL('../../dist/src/http/routes/console-ui.js', import.meta.url).href)) as { CONSOLE_CSP: string };
  const bundled = await build({ input: resolve(import.meta.dirname, '../../console/src/pages/email/sanitize.ts'), platform: 'browser', write: false, logLevel: 'silent', output: { format: 'esm' } });
  const code = bundled.output.find((chunk) => chunk.type === 'chunk')!.code;
  server = createServer((request, response) => {
    const headers = { 'content-security-policy': CONSOLE_CSP, 'cache-control': 'no-store' };
    if (request.url === '/sanitize.js') return void response.writeHead(200, { ...headers, 'content-type': 'text/javascript' }).end(code);
    response.writeHead(200, { ...headers, 'content-type': 'text/html; charset=utf-8' }).end('<!doctype html><html lang="en"><title>Sanitize</title><p id="outside">The console</p><div id="host"></div>');
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  contexts = contextsOf(await workerBrowser());
  context = await contexts.open();
  page = await context.newPage();
  await page.goto(`${origin}/`);
  // A string, not a function: vitest would rewrite a function's import() for node. (The module loads under
  // the page's CSP, script-src 'self'.)
  await page.evaluate("import('/sanitize.js').then((m) => { window.sanitize = m; })");
  await page.evaluate(() => {
    (window as unknown as { violations: string[] }).violations = [];
    document.addEventListener('securitypolicyviolation', (e) => (window as unknown as { violations: string[] }).violations.push(`${e.violatedDirective} ${e.blockedURI}`), true);
  });
}, 60_000);
afterAll(async () => {
  await contexts?.close();
  await new Promise<void>((done) => (server ? server.close(() => done()) : done()));
});

interface Drawn {
  html: string;
  omitted: string[];
  sheets: number;
}

/** drawEmail(html) in the page, attached to #host's shadow root as drawn.tsx attaches it; what the root holds. */
const draw = (html: string) =>
  page.evaluate(async (source) => {
    const m = (window as unknown as { sanitize: typeof import('../../console/src/pages/email/sanitize.js') }).sanitize;
    const host = document.getElementById('host')!;
    const root = host.shadowRoot ?? host.attachShadow({ mode: 'open' });
    const drawn = m.drawEmail(source, document);
    root.adoptedStyleSheets = [m.baseSheet(), ...drawn.sheets];
    root.replaceChildren(drawn.content);
    await new Promise((done) => requestAnimationFrame(() => setTimeout(done, 50)));
    return { html: root.innerHTML, omitted: drawn.omitted, sheets: drawn.sheets.length } as Drawn;
  }, html);

/** The computed value of `property` of the first element matching `selector` in the drawn email. */
const computed = (selector: string, property: string) =>
  page.evaluate(([s, p]) => getComputedStyle(document.getElementById('host')!.shadowRoot!.querySelector(s!)!).getPropertyValue(p!), [selector, property]);
const violations = () => page.evaluate(() => (window as unknown as { violations: string[] }).violations);
const ran = () => page.evaluate(() => (window as unknown as { ran?: unknown }).ran);

describe.skipIf(skip)('sanitize.ts: an email drawn under the console CSP', () => {
  it('a styled paragraph and a <style> rule are drawn with their computed styles; the console outside is untouched', async () => {
    const drawn = await draw('<html lang="fr"><head><style>.note { font-weight: 700 } p { margin-left: 7px }</style></head><body style="background-color: rgb(1, 2, 3)"><p class="note" style="color: rgb(200, 0, 0)">Bonjour</p></body></html>');
    expect(await computed('p', 'color')).toBe('rgb(200, 0, 0)');
    expect(await computed('p', 'font-weight')).toBe('700');
    expect(await computed('p', 'margin-left')).toBe('7px');
    expect(await computed('.email-body', 'background-color')).toBe('rgb(1, 2, 3)');
    expect(drawn.html).toContain('lang="fr"');
    expect(drawn.sheets).toBe(1);
    expect(await page.evaluate(() => getComputedStyle(document.getElementById('outside')!).marginLeft), 'the email CSS stays in its root').not.toBe('7px');
    expect(await violations()).toEqual([]);
  });

  it('scripts, event handlers, frames, objects and forms are gone and never ran', async () => {
    const drawn = await draw(
      '<p onclick="window.ran=1">Hi<script>window.ran = 2</script></p><img src="data:image/gif;base64,R0lGODlhAQABAAAAACw=" onerror="window.ran=3" alt="dot"><iframe srcdoc="<script>parent.ran=4</script>"></iframe><object data="x"></object><form action="https://evil.example"><input name="q"><button>Go</button></form><svg><script>window.ran=5</script></svg><details open ontoggle="window.ran=6">x</details>',
    );
    expect(await ran()).toBeUndefined();
    expect(drawn.html).not.toMatch(/<script|onclick|onerror|ontoggle|<iframe|<object|<form|<input|<button|<svg/i);
    expect(drawn.html).toContain('Hi');
    expect(drawn.html).toContain('<img src="data:image/gif');
    expect(drawn.omitted.join(' ')).toMatch(/\(form, iframe, object, script, svg\)/);
    expect(await violations()).toEqual([]);
  });

  it('links open nothing (http, https and mailto addresses shown as their title); javascript: and relative ones keep only their text', async () => {
    const drawn = await draw('<a href="https://example.com/verify?t=1">Verify</a> <a href="mailto:help@example.com">Mail</a> <a href="javascript:window.ran=7">Bad</a> <a href="/relative">Rel</a> <a href=" JaVaScRiPt:alert(1)">Bad2</a>');
    expect(drawn.html).not.toMatch(/\shref=/);
    expect(drawn.html).toContain('title="https://example.com/verify?t=1"');
    expect(drawn.html).toContain('title="mailto:help@example.com"');
    expect(drawn.html).not.toMatch(/javascript|relative/i);
    await page.evaluate(() => (document.getElementById('host')!.shadowRoot!.querySelectorAll('a')[2] as HTMLElement).click());
    expect(await ran()).toBeUndefined();
    expect(page.url()).toBe(`${origin}/`);
  });

  it('a remote image (refused by img-src) is replaced by its alt text; CSS that would fetch is dropped; no violation', async () => {
    const drawn = await draw(
      '<style>@import url(https://evil.example/a.css); @font-face { font-family: X; src: url(https://evil.example/x.woff) } .b { background-image: url(https://evil.example/b.png); color: rgb(0, 0, 200) } :host { position: fixed }</style><p class="b" style="background: url(&quot;https://evil.example/c.png&quot;) no-repeat; border-top: 2px solid rgb(0, 128, 0)">Styled</p><img src="https://evil.example/logo.png" alt="Shop logo"><img src="https://evil.example/pixel.gif"><p style="background-image: url(data:image/gif;base64,R0lGODlhAQABAAAAACw=)">Data</p>',
    );
    expect(drawn.html).toContain('[Shop logo]');
    expect(drawn.html).not.toContain('evil.example');
    expect(await computed('.b', 'color')).toBe('rgb(0, 0, 200)');
    expect(await computed('.b', 'border-top-color')).toBe('rgb(0, 128, 0)');
    expect(await computed('.b', 'background-image')).toBe('none');
    expect(await computed('p:last-of-type', 'background-image')).toMatch(/^url\("data:image\/gif/);
    expect(await page.evaluate(() => getComputedStyle(document.getElementById('host')!).position)).toBe('static');
    expect(drawn.omitted.join(' ')).toMatch(/2 remote images/);
    expect(drawn.omitted.join(' ')).toMatch(/style rules? that would load a remote file/);
    expect(await violations()).toEqual([]);
  });

  it('headings sit under the preview’s own (aria-level 4 and on); unknown containers keep their content', async () => {
    const drawn = await draw('<main><section><h1>Title</h1><h3>Sub</h3><custom-el>Inner <b>bold</b></custom-el></section></main>');
    expect(drawn.html).toContain('<h1 aria-level="4">Title</h1>');
    expect(drawn.html).toContain('<h3 aria-level="6">Sub</h3>');
    expect(drawn.html).toContain('Inner <b>bold</b>');
    expect(drawn.html).not.toMatch(/<main|<section|<custom-el/);
  });
});
