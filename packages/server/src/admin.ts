import type { Body, ErrorCode, Ok, paths, Query } from '@gatehouse/api-types';
import { GatehouseError } from '@gatehouse/errors';
import createClient, { type Client } from 'openapi-fetch';

/** A user as the secret-key routes answer it, its metadata typed as JSON objects (docs/users.md). */
export type User = Ok<'getUser'>;
/** A metadata object: any JSON object of at most 8 KiB. */
export type UserMetadata = User['public_metadata'];

export interface AdminOptions {
  /** Gatehouse's base URL (its PUBLIC_BASE_URL). */
  baseUrl: string;
  /** The app's secret key (`sk_...`). Keep it on the server. */
  secretKey: string;
  /** A fetch of your own (tests, proxies, retries); the global one by default. */
  fetch?: typeof fetch;
}

/**
 * What every call answers: the body of a 2xx, or a thrown GatehouseError with status, code, detail and
 * request id. A sign-in that asks for a second factor (`mfa_required: true`) is thrown too, as code
 * `mfa_required` with the answer in `body`, so callers branch on `error.code` alone.
 */
async function unwrap<T>(call: Promise<{ data?: unknown; error?: unknown; response: Response }>): Promise<T> {
  const { data, error, response } = await call;
  const requestId = response.headers.get('x-request-id') ?? undefined;
  if (response.ok) {
    if ((data as { mfa_required?: unknown } | undefined)?.mfa_required === true) {
      throw new GatehouseError(response.status, 'mfa_required', 'a second factor is required to finish signing in', { requestId, body: data });
    }
    return data as T;
  }
  const fields = (error ?? {}) as { detail?: unknown; code?: unknown };
  const detail = typeof fields.detail === 'string' ? fields.detail : response.statusText;
  // A proxy's own error page has no code: name it by status, as the server names its own.
  const code = typeof fields.code === 'string' ? (fields.code as ErrorCode) : response.status >= 500 ? 'internal' : 'bad_request';
  const retryAfter = Number(response.headers.get('retry-after'));
  throw new GatehouseError(response.status, code, detail, { requestId, retryAfter: retryAfter > 0 ? retryAfter : undefined, body: error });
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
    /** Any `api` call's answer as its body, or a thrown GatehouseError (as the named methods answer). */
    call: <T>(request: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> => unwrap<T>(request),
    users: {
      list: (query: Query<'listUsers'> = {}) => unwrap<Ok<'listUsers'>>(api.GET('/v1/users', { params: { query } })),
      get: (userId: string) => unwrap<Ok<'getUser'>>(api.GET('/v1/users/{user_id}', { params: { path: { user_id: userId } } })),
      create: (body: Body<'createUser'>) => unwrap<Ok<'createUser'>>(api.POST('/v1/users', { body })),
      /** email, email_verified, the three metadata objects (each replaced whole), banned, locale (docs/users.md). */
      update: (userId: string, body: Body<'updateUser'>) =>
        unwrap<Ok<'updateUser'>>(api.PATCH('/v1/users/{user_id}', { params: { path: { user_id: userId } }, body })),
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
    events: {
      /** The audit log, newest first: `type` (`user.*` a prefix), `user_id`, `since`, `until`, `limit`, `cursor` (docs/events.md). */
      list: (query: Query<'listEvents'> = {}) => unwrap<Ok<'listEvents'>>(api.GET('/v1/events', { params: { query } })),
      get: (eventId: string) => unwrap<Ok<'getEvent'>>(api.GET('/v1/events/{event_id}', { params: { path: { event_id: eventId } } })),
      /** Counts per UTC day and type (`{days: [{date, counts}]}`), every day of `since`..`until` (default: the last 30). */
      stats: (query: Query<'getEventStats'> = {}) => unwrap<Ok<'getEventStats'>>(api.GET('/v1/events/stats', { params: { query } })),
    },
    billing: {
      get: () => unwrap<Ok<'getBilling'>>(api.GET('/v1/billing')),
    },
  };
}

export type AdminClient = ReturnType<typeof createAdminClient>;
export type { components, paths } from '@gatehouse/api-types';
