import { request as httpRequest } from 'node:http';
import type { TestServer } from './server.js';

export interface TestApp {
  app_id: string;
  tenant_id: string;
  name: string;
  publishable_key: string;
  secret_key: string;
  domain: string | null;
  allowed_origins: string[];
  verification_method: string;
  signing_key_id: string;
  [key: string]: unknown;
}

/** Runs a CLI command that must succeed and prints JSON; returns the parsed object. */
export async function cliJson<T>(server: TestServer, args: string[]): Promise<T> {
  const result = await server.cli([...args, '--json']);
  if (result.code !== 0) throw new Error(`gatehouse ${args.join(' ')} exited ${result.code}: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}

export async function createTenant(server: TestServer, name = 'Acme'): Promise<string> {
  return (await cliJson<{ tenant_id: string }>(server, ['tenant', 'create', '--name', name])).tenant_id;
}

/**
 * Creates an app through the real CLI. Tests get a low hashcash difficulty (fast sign-ups) unless they
 * pass their own `--hashcash-difficulty`.
 */
export async function createApp(server: TestServer, options: { tenantId?: string; name?: string; args?: string[] } = {}): Promise<TestApp> {
  const tenantId = options.tenantId ?? (await createTenant(server));
  const args = options.args ?? [];
  const defaults = args.includes('--hashcash-difficulty') ? [] : ['--hashcash-difficulty', '0'];
  return cliJson<TestApp>(server, ['app', 'create', '--tenant', tenantId, '--name', options.name ?? 'Test app', ...defaults, ...args]);
}

export interface JsonResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

/**
 * One HTTP request with a JSON body and a parsed JSON answer, through node:http (so tests may set
 * `Host`, which fetch forbids). Never follows redirects.
 */
export function api<T = any>(
  server: TestServer,
  method: string,
  path: string,
  options: { body?: unknown; headers?: Record<string, string>; publishableKey?: string; bearer?: string; rawBody?: string } = {},
): Promise<JsonResponse<T>> {
  const headers: Record<string, string> = { ...options.headers };
  const payload = options.rawBody ?? (options.body === undefined ? undefined : JSON.stringify(options.body));
  if (options.body !== undefined && !headers['content-type']) headers['content-type'] = 'application/json';
  if (options.publishableKey) headers['x-publishable-key'] = options.publishableKey;
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`;
  if (payload !== undefined) headers['content-length'] = String(Buffer.byteLength(payload));
  return new Promise((resolve, reject) => {
    const req = httpRequest(server.url + path, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = text;
        try {
          body = text ? JSON.parse(text) : undefined;
        } catch {
          // not JSON: keep the text
        }
        const responseHeaders = new Headers();
        for (const [key, value] of Object.entries(res.headers)) {
          for (const v of Array.isArray(value) ? value : value === undefined ? [] : [value]) responseHeaders.append(key, v);
        }
        resolve({ status: res.statusCode ?? 0, headers: responseHeaders, body: body as T });
      });
    });
    req.on('error', reject);
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
