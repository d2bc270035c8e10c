import { describe, expect, it } from 'vitest';
import { DEFAULT_BILLING_PRICES, parseBillingChains, parseBillingPrices } from '../../config/billing.js';
import { parseUsd } from './money.js';
import { parsePeriod, previousPeriod, priceUsage } from './pricing.js';

const GIB = 1024 ** 3;

describe('prices and free tier', () => {
  it('the free tier costs nothing; above it each item rounds up to the cent', () => {
    const free = priceUsage(DEFAULT_BILLING_PRICES, { monthlyActiveUsers: 1000, tableStorageBytes: 100 * 1024 * 1024, objectStorageBytes: GIB });
    expect(free.map((i) => i.cents)).toEqual([0, 0, 0]);
    const paid = priceUsage(DEFAULT_BILLING_PRICES, { monthlyActiveUsers: 1001, tableStorageBytes: 100 * 1024 * 1024 + 1, objectStorageBytes: 11 * GIB });
    expect(paid.map((i) => i.cents)).toEqual([2, 1, 30]);
  });

  it('BILLING_PRICES overrides a subset, with up to 4 decimals; bad entries are refused', () => {
    expect(parseBillingPrices('mau=0.0025,mau_free=0')).toMatchObject({ mauUnits: 25, mauFree: 0, tableGibUnits: 2500 });
    expect(priceUsage(parseBillingPrices('mau=0.0025,mau_free=0'), { monthlyActiveUsers: 5, tableStorageBytes: 0, objectStorageBytes: 0 })[0].cents).toBe(2);
    for (const bad of ['mau=-1', 'mau=0.00001', 'foo=1', 'mau', 'mau_free=1.5']) expect(() => parseBillingPrices(bad)).toThrow();
    expect(parseBillingChains(undefined)).toContain('ethereum');
    expect(parseBillingChains('Bitcoin, ethereum')).toEqual(['bitcoin', 'ethereum']);
    expect(() => parseBillingChains(' , ')).toThrow();
  });
});

describe('money and periods', () => {
  it('USD amounts: at most 2 decimals, > 0 for top-ups, at most 100,000', () => {
    expect(parseUsd(12.34, 'a', 'positive')).toBe(1234);
    expect(parseUsd(0.29, 'a', 'positive')).toBe(29);
    expect(parseUsd(-5, 'a', 'any')).toBe(-500);
    for (const bad of [0, -1, 1.005, 1e9, '10', NaN, Infinity, null]) expect(() => parseUsd(bad, 'a', 'positive')).toThrow();
  });

  it('periods are UTC months; the previous one of January is December', () => {
    expect(previousPeriod(new Date('2026-01-10T00:00:00Z'))).toEqual({ name: '2025-12', start: '2025-12-01T00:00:00.000Z', end: '2026-01-01T00:00:00.000Z' });
    expect(() => parsePeriod('2026-12', new Date('2026-11-30T00:00:00Z'))).toThrow();
    expect(parsePeriod('2026-11', new Date('2026-11-30T00:00:00Z')).end).toBe('2026-12-01T00:00:00.000Z');
  });
});
