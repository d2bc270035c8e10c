import { describe, expect, it } from 'vitest';
import { timestamptzText } from './tables-dialect.js';

describe('timestamptz from PostgreSQL as the API shows dates', () => {
  const fallback = (text: string) => new Date(text.replace(' ', 'T').replace(/([+-]\d\d)$/, '$1:00'));
  const parse = timestamptzText(fallback);

  it('UTC text becomes YYYY-MM-DDTHH:mm:ss.sssZ without a Date, with milliseconds always three digits', () => {
    expect(parse('2028-12-30 15:31:51.09+00')).toBe('2028-12-30T15:31:51.090Z');
    expect(parse('2026-01-01 00:00:00+00')).toBe('2026-01-01T00:00:00.000Z');
    expect(parse('0001-01-01 00:00:00+00')).toBe('0001-01-01T00:00:00.000Z');
    expect(parse('2026-01-01 00:00:00.123456+00')).toBe('2026-01-01T00:00:00.123Z');
  });

  it('another offset (a session not in UTC) goes through the fallback parser', () => {
    expect(parse('2026-01-01 02:00:00.5+02')).toBe('2026-01-01T00:00:00.500Z');
  });
});
