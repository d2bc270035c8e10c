import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, createApp, type TestApp } from '../helpers/fixtures.js';
import { startServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let app: TestApp;
let other: TestApp;

beforeAll(async () => {
  server = await startServer();
  app = await createApp(server, { args: ['--allowed-origin', 'https://shop.example.test'] });
  other = await createApp(server, { args: ['--allowed-origin', 'https://other.example.test'] });
});
afterAll(async () => {
  await server?.stop();
});

describe('CORS follows the apps allow-lists', () => {
  it('a preflight from an allowed origin is answered with that origin and credentials', async () => {
    const res = await api(server, 'OPTIONS', '/v1/signins', {
      headers: { origin: 'https://shop.example.test', 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type,x-publishable-key' },
    });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://shop.example.test');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('access-control-allow-headers')).toMatch(/x-publishable-key/);
  });

  it('a preflight from an origin no app allows gets no CORS headers', async () => {
    const res = await api(server, 'OPTIONS', '/v1/signins', { headers: { origin: 'https://evil.example.com', 'access-control-request-method': 'POST' } });
    expect(res.headers.get('access-control-allow-origin')).toBeNull();
  });

  it("a request is checked against its own app's list", async () => {
    const own = await api(server, 'GET', '/v1/health', { publishableKey: app.publishable_key, headers: { origin: 'https://shop.example.test' } });
    expect(own.headers.get('access-control-allow-origin')).toBe('https://shop.example.test');
    expect(own.headers.get('access-control-expose-headers')).toMatch(/x-request-id/);
    const foreign = await api(server, 'GET', '/v1/health', { publishableKey: other.publishable_key, headers: { origin: 'https://shop.example.test' } });
    expect(foreign.headers.get('access-control-allow-origin')).toBeNull();
  });
});
