import { createHmac, timingSafeEqual } from 'node:crypto';
import { badRequest } from '../../errors.js';

// Query cursors: opaque and tamper-evident. The position (sort value, row_id) and what it belongs to
// (app, table, sort field and direction) are MACed with a key derived from MASTER_KEY, so a forged,
// edited or foreign cursor is refused instead of steering the query.

export interface CursorPosition {
  app: string;
  table: string;
  /** `c:<column id>` or a row field name: a rename keeps cursors valid, another sort does not. */
  sort: string;
  dir: 'asc' | 'desc';
  /** In the segment of rows whose sort value is null. */
  nulls: boolean;
  value: unknown;
  rowId: string;
}

const mac = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest().subarray(0, 16);

export function encodeCursor(key: Buffer, position: CursorPosition): string {
  const payload = Buffer.from(JSON.stringify([position.app, position.table, position.sort, position.dir, position.nulls, position.value, position.rowId])).toString('base64url');
  return `${payload}.${mac(key, payload).toString('base64url')}`;
}

/** The position in the cursor, when it is ours and made for this app, table and sort; else 400. */
export function decodeCursor(key: Buffer, cursor: string, expect: Pick<CursorPosition, 'app' | 'table' | 'sort' | 'dir'>): CursorPosition {
  // A function, not one error made up front: an ApiError captures a stack, and most cursors are valid.
  const invalid = () => badRequest('cursor is invalid, or belongs to another query');
  const [payload, tag, extra] = cursor.split('.');
  if (!payload || !tag || extra !== undefined) throw invalid();
  const given = Buffer.from(tag, 'base64url');
  const wanted = mac(key, payload);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw invalid();
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
  } catch {
    throw invalid();
  }
  if (!Array.isArray(fields) || fields.length !== 7) throw invalid();
  const [app, table, sort, dir, nulls, value, rowId] = fields as [string, string, string, 'asc' | 'desc', boolean, unknown, string];
  if (app !== expect.app || table !== expect.table) throw invalid();
  if (sort !== expect.sort || dir !== expect.dir) throw badRequest('cursor was made for another sort: send the same sort as the first page');
  return { app, table, sort, dir, nulls, value, rowId };
}
