import { expect } from 'vitest';
import { api, createApp, type JsonResponse, type TestApp } from './fixtures.js';
import type { TestServer } from './server.js';

// Fixtures for the custom-table tests: callers as the secret key or as a session user, through the public API.

export type Caller = { bearer: string; publishableKey?: string };

export const asSecret = (app: TestApp): Caller => ({ bearer: app.secret_key });

let counter = 0;
/** A user of `app` with a live session (server-side creation + sign-in token): a Publishable + Session caller. */
export async function sessionUser(server: TestServer, app: TestApp): Promise<Caller & { userId: string }> {
  const email = `tables.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;
  const user = await api(server, 'POST', '/v1/users', { bearer: app.secret_key, body: { email } });
  expect(user.status).toBe(201);
  const token = await api(server, 'POST', '/v1/sign_in_tokens', { bearer: app.secret_key, body: { user_id: user.body.id } });
  expect(token.status).toBe(200);
  return { bearer: token.body.token, publishableKey: app.publishable_key, userId: user.body.id };
}

export function call(server: TestServer, caller: Caller, method: string, path: string, body?: unknown): Promise<JsonResponse> {
  return api(server, method, path, { bearer: caller.bearer, publishableKey: caller.publishableKey, body });
}

let names = 0;
export const tableName = (base = 'items') => `${base}_${Date.now().toString(36)}_${names++}`;

/** Creates a table (must succeed) and returns it. */
export async function makeTable(server: TestServer, caller: Caller, columns: unknown[], name = tableName()) {
  const res = await call(server, caller, 'POST', '/v1/tables', { name, columns });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { table_id: string; name: string; columns: { column_id: string; name: string; type: string }[] };
}

export async function insertRow(server: TestServer, caller: Caller, tableId: string, data: Record<string, unknown>, extra: Record<string, unknown> = {}) {
  const res = await call(server, caller, 'POST', `/v1/tables/${tableId}/rows`, { data, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body as { row_id: string; data: Record<string, unknown>; user_id: string | null };
}

export const query = (server: TestServer, caller: Caller, tableId: string, body: unknown) => call(server, caller, 'POST', `/v1/tables/${tableId}/rows/query`, body);

/** Every row of a query, page by page. */
export async function queryAll(server: TestServer, caller: Caller, tableId: string, body: Record<string, unknown>) {
  const rows: any[] = [];
  let cursor: string | null = null;
  for (let i = 0; i < 1000; i++) {
    const res = await query(server, caller, tableId, { ...body, cursor });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    rows.push(...res.body.rows);
    cursor = res.body.next_cursor;
    if (!cursor) break;
  }
  return rows;
}

export const storage = async (server: TestServer, caller: Caller) => (await call(server, caller, 'GET', '/v1/tables/storage')).body as { used_bytes: number; limit_bytes: number; used_percent: number };

export { createApp };

/** A column as the storage formula sees it. */
export type CostColumn = { name: string; type: string };
const indexed = (columns: CostColumn[]) => columns.filter((c) => c.type !== 'json');

/**
 * What used_bytes counts for a row (docs/tables.md, "What storage counts"): its data as UTF-8 JSON, 500
 * bytes, 64 per indexed column (every type but json, null or not) and each text value's bytes 3 times more.
 */
export function rowBytes(columns: CostColumn[], data: Record<string, unknown>): number {
  let bytes = Buffer.byteLength(JSON.stringify(data)) + 500 + 64 * indexed(columns).length;
  for (const c of columns) if (c.type === 'text' && typeof data[c.name] === 'string') bytes += 3 * Buffer.byteLength(data[c.name] as string);
  return bytes;
}

/** What used_bytes counts for a table beside its rows: 40 KiB, and 16 KiB per indexed column. */
export const tableBytes = (columns: CostColumn[]) => 40 * 1024 + 16 * 1024 * indexed(columns).length;
