// The one way the console calls Gatehouse: the Management API and the Secret routes (with X-App-Id), always
// with the console access token as Bearer (never a secret key, never ADMIN_TOKEN). A token about to expire is
// refreshed first (getToken); a 401 refreshes once and retries. Every refusal throws ApiFailure with the
// server's detail and code, which <Problem> shows.
import { gatehouse } from './session.js';

export class ApiFailure extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly requestId?: string,
  ) {
    super(detail);
  }
}

export interface CallOptions {
  body?: unknown;
  /** The app whose data a Secret route reads or writes (X-App-Id). */
  appId?: string;
  /** Query parameters; undefined values are left out. */
  query?: Record<string, string | number | boolean | undefined>;
}

function address(path: string, query: CallOptions['query']): string {
  const url = new URL(path, location.origin);
  for (const [name, value] of Object.entries(query ?? {})) if (value !== undefined && value !== '') url.searchParams.set(name, String(value));
  return url.pathname + url.search;
}

async function send(method: string, url: string, token: string, options: CallOptions): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}`, accept: 'application/json' };
  if (options.appId) headers['x-app-id'] = options.appId;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  try {
    return await fetch(url, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body), credentials: 'omit' });
  } catch {
    throw new ApiFailure(0, 'network_error', 'Gatehouse did not answer: check your connection and try again');
  }
}

/** The console access token (refreshed when about to expire): for the calls api() cannot make (transfer.ts). */
export async function token(): Promise<string> {
  const value = await gatehouse().auth.getToken().catch(() => null);
  if (!value) throw new ApiFailure(401, 'signed_out', 'you are signed out: sign in again');
  return value;
}

/** Calls `method path` and answers its JSON body; throws ApiFailure on any refusal. */
export async function api<T = any>(method: string, path: string, options: CallOptions = {}): Promise<T> {
  const url = address(path, options.query);
  let answer = await send(method, url, await token(), options);
  if (answer.status === 401) {
    const renewed = await gatehouse().auth.refreshSession().catch(() => null);
    if (renewed?.access_token) answer = await send(method, url, renewed.access_token, options);
  }
  const text = await answer.text();
  let body: any;
  try {
    body = text ? JSON.parse(text) : undefined;
  } catch {
    body = undefined;
  }
  if (!answer.ok) {
    const detail = typeof body?.detail === 'string' ? body.detail : `the server answered ${answer.status}`;
    throw new ApiFailure(answer.status, typeof body?.code === 'string' ? body.code : 'unknown', detail, answer.headers.get('x-request-id') ?? undefined);
  }
  return body as T;
}

/** What any thrown value says, as an ApiFailure (the client's GatehouseError carries the same fields). */
export function asFailure(error: unknown): ApiFailure {
  if (error instanceof ApiFailure) return error;
  const e = error as { status?: number; code?: string; detail?: string; message?: string; requestId?: string };
  if (e && typeof e.code === 'string') return new ApiFailure(e.status ?? 0, e.code, e.detail ?? e.message ?? e.code, e.requestId);
  return new ApiFailure(0, 'unexpected', error instanceof Error ? error.message : String(error));
}
