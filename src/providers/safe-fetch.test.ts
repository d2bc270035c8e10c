import { createServer } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { guardedFetch, refusedAddress } from './safe-fetch.js';

// docs/oauth.md: a custom OpenID Connect issuer is reached only through guardedFetch, which checks
// each address after DNS resolution, on the socket's own lookup.

let hits = 0;
const server = createServer((_req, res) => {
  hits++;
  res.writeHead(200, { 'content-type': 'application/json' }).end('{"ok":true}');
});
let port = 0;
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as { port: number }).port;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

describe('refusedAddress', () => {
  it('refuses private, link-local, metadata, shared and unspecified addresses, in IPv4, IPv6 and IPv4-mapped form', () => {
    for (const address of ['10.1.2.3', '172.16.5.4', '172.31.255.255', '192.168.1.1', '169.254.169.254', '100.64.0.1', '0.0.0.0', '224.0.0.1', 'fd00::1', 'fc00::2', 'fe80::1', '::', '::ffff:10.0.0.1', '::ffff:169.254.169.254']) {
      expect(refusedAddress(address, true), address).toMatch(/private or special-purpose/);
    }
  });

  it('loopback only when allowed; public addresses always', () => {
    for (const address of ['127.0.0.1', '127.9.9.9', '::1', '::ffff:127.0.0.1']) {
      expect(refusedAddress(address, false), address).toMatch(/loopback/);
      expect(refusedAddress(address, true), address).toBeNull();
    }
    for (const address of ['8.8.8.8', '172.32.0.1', '1.1.1.1', '2606:4700:4700::1111']) expect(refusedAddress(address, false), address).toBeNull();
  });
});

describe('guardedFetch', () => {
  it('a name that resolves to loopback is refused after resolution, before any request reaches it', async () => {
    const before = hits;
    await expect(guardedFetch(false)(`http://localhost:${port}/x`)).rejects.toThrow(/fetch failed/);
    await expect(guardedFetch(false)(`http://127.0.0.1:${port}/x`)).rejects.toThrow(/fetch failed/);
    await expect(guardedFetch(true)('http://10.255.255.1:9/x')).rejects.toMatchObject({ cause: { code: 'EADDRREFUSED' } });
    expect(hits).toBe(before);
  });

  it('where loopback is allowed, the same request is answered, as fetch would answer it', async () => {
    const res = await guardedFetch(true)(`http://localhost:${port}/x`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'hi' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true });
  });
});
