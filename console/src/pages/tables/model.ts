// The custom tables as the API answers them (docs/tables.md), their addresses in the console, and the
// conversion between a column's value and the text of its field (the API refuses a wrong type with a 400).
import type { Ok } from '@gatehouse/api-types';

export type Table = Ok<'getTable'>;
export type Column = Table['columns'][number];
export type ColumnType = Column['type'];
export type Row = Ok<'getRow'>;

export const TYPES: [ColumnType, string][] = [
  ['text', 'text (at most 2,048 bytes)'],
  ['int', 'int (a whole number)'],
  ['float', 'float (a number)'],
  ['bool', 'bool (true or false)'],
  ['date', 'date (ISO 8601)'],
  ['json', 'json (any JSON value)'],
];

export const tablesHref = (tenantId: string, appId: string) => `/t/${tenantId}/apps/${appId}/tables`;
export const tableHref = (tenantId: string, appId: string, tableId: string) => `${tablesHref(tenantId, appId)}/${tableId}`;

/** A value as the text of its field ('' for none). */
export function toText(value: unknown, type: ColumnType): string {
  if (value === undefined || value === null) return '';
  if (type === 'json') return JSON.stringify(value);
  return String(value);
}

/**
 * The text of a field as the column's value: numbers and booleans parsed, JSON parsed; '' is "no value"
 * (undefined). Text the type cannot read is sent as typed, so the server's 400 says what is wrong.
 */
export function fromText(text: string, type: ColumnType): unknown {
  if (text === '') return undefined;
  if (type === 'int' || type === 'float') return text.trim() !== '' && Number.isFinite(Number(text)) ? Number(text) : text;
  if (type === 'bool') return text === 'true' ? true : text === 'false' ? false : text;
  if (type === 'json') {
    try {
      return JSON.parse(text);
    } catch {
      return text;
    }
  }
  return text;
}

/** How a value shows in the grid. */
export function shown(value: unknown): string {
  if (value === undefined || value === null) return '';
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** One condition of POST /v1/tables/{id}/rows/query as the filter form holds it. */
export interface Condition {
  field: string;
  op: string;
  value: string;
}

export const OPS: [string, string][] = [
  ['eq', 'equals'],
  ['ne', 'does not equal'],
  ['gt', 'greater than'],
  ['gte', 'at least'],
  ['lt', 'less than'],
  ['lte', 'at most'],
  ['in', 'one of (comma-separated)'],
  ['contains', 'contains (text, any case)'],
  ['is_null', 'is empty (true or false)'],
];

/** The API's filter condition: the value parsed by the column's type (`in`: a comma-separated list). */
export function toFilter(condition: Condition, columns: Column[]): { field: string; op: string; value?: unknown } {
  const type = columns.find((c) => c.name === condition.field)?.type ?? 'text';
  if (condition.op === 'is_null') return { field: condition.field, op: 'is_null', value: condition.value !== 'false' };
  if (condition.op === 'in') return { field: condition.field, op: 'in', value: condition.value.split(',').map((v) => fromText(v.trim(), type) ?? '') };
  return { field: condition.field, op: condition.op, value: fromText(condition.value, type) ?? null };
}

/** At most as many conditions as the API takes (a list of 50, all must hold). */
export const MAX_CONDITIONS = 50;

/** The conditions kept in the address (`?where=`, JSON), so a filtered page can be linked and reloaded. */
export function conditionsOf(where: string | null): Condition[] {
  if (!where) return [];
  try {
    const list = JSON.parse(where) as unknown;
    return Array.isArray(list) ? list.filter((c): c is Condition => typeof c?.field === 'string' && typeof c?.op === 'string' && typeof c?.value === 'string').slice(0, MAX_CONDITIONS) : [];
  } catch {
    return [];
  }
}
