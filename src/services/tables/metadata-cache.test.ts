import { describe, expect, it } from 'vitest';
import type { CustomTable } from '../../store/repos/custom-tables.js';
import { TableMetadataCache } from './metadata-cache.js';

const table = (id: string, appId = 'app1', schemaVersion = 0): CustomTable => ({
  id,
  appId,
  name: id,
  columnCount: 0,
  schemaVersion,
  columns: [],
  createdAt: '2026-01-01T00:00:00.000Z',
  updatedAt: '2026-01-01T00:00:00.000Z',
});

describe('a node\'s copy of table metadata', () => {
  it('answers only the app that owns the table (the tenant key is part of every lookup)', () => {
    const cache = new TableMetadataCache();
    cache.set(table('t1'));
    expect(cache.get('app1', 't1')?.id).toBe('t1');
    expect(cache.get('app2', 't1')).toBeUndefined();
    cache.forget('app2', 't1'); // another app cannot drop the owner's entry
    expect(cache.get('app1', 't1')).toBeDefined();
    cache.forget('app1', 't1');
    expect(cache.get('app1', 't1')).toBeUndefined();
  });

  it('keeps the newest copy and at most its size, dropping the oldest entry first', () => {
    const cache = new TableMetadataCache(2);
    cache.set(table('t1'));
    cache.set(table('t2'));
    cache.set(table('t1', 'app1', 1));
    cache.set(table('t3'));
    expect(cache.get('app1', 't2')).toBeUndefined();
    expect(cache.get('app1', 't1')?.schemaVersion).toBe(1);
    expect(cache.get('app1', 't3')).toBeDefined();
  });
});
