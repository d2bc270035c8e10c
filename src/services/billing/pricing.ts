import type { BillingPrices } from '../../config/billing.js';
import { badRequest } from '../../errors.js';
import type { UsageItem } from '../../store/types.js';

// Periods are calendar months in UTC, named YYYY-MM. Prices are in 1/10,000 USD; charges round up to the cent.

const GIB = 1024n * 1024n * 1024n;

export interface Period {
  name: string;
  start: string;
  end: string;
}

function periodAt(year: number, monthIndex: number): Period {
  const start = new Date(Date.UTC(year, monthIndex, 1));
  const end = new Date(Date.UTC(year, monthIndex + 1, 1));
  return { name: start.toISOString().slice(0, 7), start: start.toISOString(), end: end.toISOString() };
}

export const currentPeriod = (now: Date): Period => periodAt(now.getUTCFullYear(), now.getUTCMonth());
/** The last closed month: what the scheduled run charges. */
export const previousPeriod = (now: Date): Period => periodAt(now.getUTCFullYear(), now.getUTCMonth() - 1);

/** A YYYY-MM period up to the current month (a month not begun has no usage to charge); else 400. */
export function parsePeriod(name: string, now: Date): Period {
  const match = /^(\d{4})-(0[1-9]|1[0-2])$/.exec(name);
  if (!match) throw badRequest(`period must be YYYY-MM, got "${name}"`);
  const period = periodAt(Number(match[1]), Number(match[2]) - 1);
  if (period.start > now.toISOString()) throw badRequest(`period ${name} has not begun`);
  return period;
}

export interface Usage {
  monthlyActiveUsers: number;
  tableStorageBytes: number;
  objectStorageBytes: number;
}

export interface PricedItem {
  item: UsageItem;
  quantity: number;
  cents: number;
}

const ceilDiv = (a: bigint, b: bigint) => (a + b - 1n) / b;
const above = (quantity: number, free: number) => BigInt(Math.max(0, quantity - free));

/** What each item of `usage` costs after the free allowances, in cents (rounded up). */
export function priceUsage(prices: BillingPrices, usage: Usage): PricedItem[] {
  const mau = ceilDiv(above(usage.monthlyActiveUsers, prices.mauFree) * BigInt(prices.mauUnits), 100n);
  const tables = ceilDiv(above(usage.tableStorageBytes, prices.tableFreeBytes) * BigInt(prices.tableGibUnits), GIB * 100n);
  const objects = ceilDiv(above(usage.objectStorageBytes, prices.objectFreeBytes) * BigInt(prices.objectGibUnits), GIB * 100n);
  return [
    { item: 'monthly_active_users', quantity: usage.monthlyActiveUsers, cents: Number(mau) },
    { item: 'table_storage', quantity: usage.tableStorageBytes, cents: Number(tables) },
    { item: 'object_storage', quantity: usage.objectStorageBytes, cents: Number(objects) },
  ];
}
