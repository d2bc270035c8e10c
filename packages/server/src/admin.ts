import createClient, { type Client } from 'openapi-fetch';
import { GatehouseError } from './errors.js';
import type { components, operations, paths } from './openapi.js';

type Body<O extends keyof operations> = NonNullable<operations[O]['requestBody']> extends { content: { 'application/json': infer B } } ? B : never;
type Ok<O extends keyof operations> = operations[O]['responses'] extends Record<200, { content: { 'application/json': infer R } }>
  ? R
  : operations[O]['responses'] extends Record<201, { content: { 'application/json': infer R } }>
    ? R
    : unknown;
type Query<O extends keyof operations> = operations[O]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;

export interface AdminOptions {
  /** Gatehouse's base URL (its PUBLIC_BASE_URL). */
  baseUrl: string;
  /** The app's secret key (`sk_...`). Keep it on the server. */
  secretKey: string;
  /** A fetch of your own (tests, proxies, retries); the global one by default. */
  fetch?: typeof fetch;
}

/** What every call answers: the body of a 2xx, or a thrown GatehouseError with status, detail and request id. */
async function unwrap<T>(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  if (response.ok) return data as T;
  const detail = typeof (error as { detail?: unknown })?.detail === 'string' ? (error as { detail: string }).detail : response.statusText;
  throw new GatehouseError(response.status, detail, response.headers.get('x-request-id') ?? undefined);
}

/**
 * The secret-key routes of one app, typed from Gatehouse's OpenAPI document. `api` is the whole typed
 * client (openapi-fetch) for any route the named methods do not cover.
 */
export function createAdminClient(options: AdminOptions) {
  const api: Client<paths> = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.secretKey}` },
    fetch: options.fetch,
  });
  return {
    api,
    users: {
      list: (query: Query<'listUsers'> = {}) => unwrap<Ok<'listUsers'>>(api.GET('/v1/users', { params: { query } })),
      get: (userId: string) => unwrap<Ok<'getUser'>>(api.GET('/v1/users/{user_id}', { params: { path: { user_id: userId } } })),
      create: (body: Body<'createUser'>) => unwrap<Ok<'createUser'>>(api.POST('/v1/users', { body })),
    },
    sessions: {
      revoke: (sessionId: string) => unwrap<Ok<'revokeSession'>>(api.POST('/v1/sessions/revoke', { params: { query: { session_id: sessionId } } })),
    },
    signInTokens: {
      create: (body: Body<'createSignInToken'>) => unwrap<Ok<'createSignInToken'>>(api.POST('/v1/sign_in_tokens', { body })),
    },
    tables: {
      list: () => unwrap<Ok<'listTables'>>(api.GET('/v1/tables')),
      create: (body: Body<'createTable'>) => unwrap<Ok<'createTable'>>(api.POST('/v1/tables', { body })),
      insertRow: (tableId: string, body: Body<'insertRow'>) =>
        unwrap<Ok<'insertRow'>>(api.POST('/v1/tables/{table_id}/rows', { params: { path: { table_id: tableId } }, body })),
      query: (tableId: string, body: Body<'queryRows'>) =>
        unwrap<Ok<'queryRows'>>(api.POST('/v1/tables/{table_id}/rows/query', { params: { path: { table_id: tableId } }, body })),
    },
    buckets: {
      list: () => unwrap<Ok<'listBuckets'>>(api.GET('/v1/buckets')),
      create: (body: Body<'createBucket'>) => unwrap<Ok<'createBucket'>>(api.POST('/v1/buckets', { body })),
      storage: () => unwrap<Ok<'getBucketStorage'>>(api.GET('/v1/buckets/storage')),
    },
    billing: {
      get: () => unwrap<Ok<'getBilling'>>(api.GET('/v1/billing')),
    },
  };
}

export type AdminClient = ReturnType<typeof createAdminClient>;
export type { components, paths };
