import { request as httpRequest } from 'node:http';
import { Command } from 'commander';
import { built } from './server-deps.js';
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

/**
 * Creates a tenant as `gatehouse tenant create` does: the same service call on the server's own database
 * and configuration, in the test process (TestServer.deps), without the cost of starting a CLI.
 */
export async function createTenant(server: TestServer, name = 'Acme'): Promise<string> {
  const { apps, cliApps } = await built();
  return (await apps.createTenant(cliApps.appsDeps(await server.deps()), name)).tenant_id;
}

export interface AppOptions {
  tenantId?: string;
  name?: string;
  /** Flags of `gatehouse app create`, e.g. ['--domain', 'shop.example.com']. */
  args?: string[];
  /** Through the real CLI, for a test of the CLI itself. */
  viaCli?: boolean;
}

/**
 * Creates an app as `gatehouse app create --json` does and returns what it prints: its flags parsed by
 * the CLI's own definitions, the same service call, in the test process (see createTenant). Tests get a
 * low hashcash difficulty (fast sign-ups) unless they pass their own `--hashcash-difficulty`.
 */
export async function createApp(server: TestServer, options: AppOptions = {}): Promise<TestApp> {
  const tenantId = options.tenantId ?? (await createTenant(server));
  const name = options.name ?? 'Test app';
  const given = options.args ?? [];
  const args = given.includes('--hashcash-difficulty') ? given : ['--hashcash-difficulty', '0', ...given];
  if (options.viaCli) return cliJson<TestApp>(server, ['app', 'create', '--tenant', tenantId, '--name', name, ...args]);
  const { apps, cliApps } = await built();
  const app = await apps.createApp(cliApps.appsDeps(await server.deps()), tenantId, name, await appSettings(args));
  // What `--json` prints: JSON's shape, not the service's objects.
  return JSON.parse(JSON.stringify(app)) as TestApp;
}

/** The settings `gatehouse app create` makes of `args`; a bad flag throws the CLI's message. */
async function appSettings(args: string[]) {
  const { cliApps } = await built();
  const command = cliApps.appSettingOptions(new Command('app create')).exitOverride().configureOutput({ writeErr: () => {} });
  return cliApps.toSettings(command.parse(args, { from: 'user' }).opts());
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
