import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { sharedServer, type TestServer } from '../helpers/server.js';
import { cliJson } from '../helpers/fixtures.js';

// docs/console.md: the service serves the built console at /console/: index.html for every client-side
// route, the hashed assets its manifest lists (immutable), config.json (the console app's publishable key),
// all under one strict Content-Security-Policy; anything else under it is a 404.

let server: TestServer;
const manifest = JSON.parse(readFileSync(resolve(import.meta.dirname, '../../dist/console/manifest.json'), 'utf8')) as { assets: string[] };

beforeAll(async () => {
  server = await sharedServer();
}, 120_000);

const directives = (csp: string) => new Map(csp.split(';').map((part) => part.trim().split(/\s+/)).map(([name, ...values]) => [name!, values]));

function expectStrictPolicy(answer: Response) {
  const policy = directives(answer.headers.get('content-security-policy') ?? '');
  expect(policy.get('default-src')).toEqual(["'none'"]);
  expect(policy.get('script-src')).toEqual(["'self'", "'wasm-unsafe-eval'"]);
  for (const values of policy.values()) {
    expect(values).not.toContain("'unsafe-inline'");
    expect(values).not.toContain("'unsafe-eval'");
  }
  expect(policy.get('connect-src')).toEqual(["'self'"]);
  expect(policy.get('worker-src')).toEqual(["'self'"]);
  expect(policy.get('frame-ancestors')).toEqual(["'none'"]);
  expect(policy.get('base-uri')).toEqual(["'none'"]);
  expect(policy.get('form-action')).toEqual(["'self'"]);
  expect(answer.headers.get('x-content-type-options')).toBe('nosniff');
}

describe('the console at /console/', () => {
  it('answers index.html, uncached, under the strict policy, for /console/ and every client-side route; /console redirects there', async () => {
    for (const path of ['/console/', '/console/setup?token=cst_x', '/console/accept?token=in_x', '/console/t/ten_1/apps/app_1/keys']) {
      const answer = await fetch(server.url + path, { headers: { accept: 'text/html' } });
      expect(answer.status, path).toBe(200);
      expect(answer.headers.get('content-type')).toMatch(/^text\/html/);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      expectStrictPolicy(answer);
      const html = await answer.text();
      expect(html).toContain('<div id="app">');
      // No inline script: the only script is an asset of the manifest.
      const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];
      expect(scripts).toHaveLength(1);
      expect(scripts[0]![2]!.trim()).toBe('');
      const src = /src="\/console\/assets\/([^"]+)"/.exec(scripts[0]![1]!)![1]!;
      expect(manifest.assets).toContain(src);
      expect(html).not.toMatch(/\son[a-z]+=/i);
    }
    const bare = await fetch(server.url + '/console', { redirect: 'manual' });
    expect(bare.status).toBe(308);
    expect(bare.headers.get('location')).toBe('/console/');
  });

  it('serves each hashed asset immutable with its type; an unknown asset or file is a 404 {detail, code}', async () => {
    for (const name of manifest.assets) {
      const answer = await fetch(`${server.url}/console/assets/${name}`);
      expect(answer.status, name).toBe(200);
      expect(answer.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(answer.headers.get('content-type')).toMatch(name.endsWith('.css') ? /^text\/css/ : /^text\/javascript/);
      expectStrictPolicy(answer);
    }
    for (const path of ['/console/assets/main-XXXXXXXX.js', '/console/assets/..%2Fmanifest.json', '/console/manifest.json', '/console/index.html', '/console/t/x/app.js']) {
      const answer = await fetch(server.url + path);
      expect(answer.status, path).toBe(404);
      expect(await answer.json()).toMatchObject({ code: 'not_found', detail: expect.any(String) });
    }
  });

  it("config.json names the console app as `console info` does, and no secret: no secret key, no ADMIN_TOKEN", async () => {
    const info = await cliJson<{ app_id: string; publishable_key: string }>(server, ['console', 'info']);
    const answer = await fetch(server.url + '/console/config.json');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    const text = await answer.text();
    expect(JSON.parse(text)).toEqual({ app_id: info.app_id, publishable_key: info.publishable_key });
    expect(text).not.toMatch(/sk_|tk_/);
  });
});
