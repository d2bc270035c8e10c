import { describe, expect, it } from 'vitest';
import { decodeCursor, encodeCursor } from './cursor.js';
import { checkValue, dataBytes, normaliseDate } from './values.js';

describe('custom-table values', () => {
  it('dates normalise to UTC with milliseconds and refuse impossible days', () => {
    expect(normaliseDate('2026-11-21')).toBe('2026-11-21T00:00:00.000Z');
    expect(normaliseDate('2026-11-21T12:30+02:00')).toBe('2026-11-21T10:30:00.000Z');
    expect(normaliseDate('2026-11-21T12:30:00.123456Z')).toBe('2026-11-21T12:30:00.123Z');
    expect(normaliseDate('0001-01-01')).toBe('0001-01-01T00:00:00.000Z');
    for (const bad of ['2026-02-29', '2026-04-31', '2026-00-10', '2026-11-21T10:00:00', '2026-11-21T24:00Z', '0000-01-01', '+02026-01-01']) {
      expect(normaliseDate(bad), bad).toBeUndefined();
    }
  });

  it('ints are safe integers, floats finite, text at most 2,048 bytes', () => {
    expect(() => checkValue('int', 'n', 2 ** 53)).toThrow(/safe integer/);
    expect(() => checkValue('float', 'f', Number.POSITIVE_INFINITY)).toThrow(/finite/);
    expect(checkValue('text', 't', 'é'.repeat(1024))).toHaveLength(1024);
    expect(() => checkValue('text', 't', 'é'.repeat(1025))).toThrow(/2048 bytes/);
  });

  it('data size is the UTF-8 JSON length', () => {
    expect(dataBytes({ a: 'é' })).toBe(10);
  });
});

describe('custom-table cursors', () => {
  const key = Buffer.alloc(32, 7);
  const at = { app: 'app_1', table: 't1', sort: 'c:x', dir: 'asc' as const };
  it('round-trip, and refuse another key, table or sort', () => {
    const cursor = encodeCursor(key, { ...at, nulls: false, value: 5, rowId: 'r' });
    expect(decodeCursor(key, cursor, at)).toMatchObject({ value: 5, rowId: 'r', nulls: false });
    expect(() => decodeCursor(Buffer.alloc(32, 8), cursor, at)).toThrow(/invalid/);
    expect(() => decodeCursor(key, cursor, { ...at, table: 't2' })).toThrow(/invalid/);
    expect(() => decodeCursor(key, cursor, { ...at, dir: 'desc' })).toThrow(/another sort/);
  });
});
