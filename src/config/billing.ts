// BILLING_CHAINS and BILLING_PRICES (docs/operations.md): parsed once at start-up, errors name the variable.

/** Chains offered for crypto top-ups when BILLING_CHAINS is unset. */
export const DEFAULT_BILLING_CHAINS = ['ethereum', 'bitcoin', 'solana', 'polygon', 'base'];

/**
 * Prices in 1/10,000 USD (so a price may have 4 decimals: 0.0025 USD per user) and free allowances.
 * Storage is priced per GiB held at the metering run (a monthly snapshot).
 */
export interface BillingPrices {
  /** Per monthly active user above the free allowance. */
  mauUnits: number;
  mauFree: number;
  /** Per GiB of custom-table storage above the free allowance. */
  tableGibUnits: number;
  tableFreeBytes: number;
  /** Per GiB of object storage above the free allowance. */
  objectGibUnits: number;
  objectFreeBytes: number;
}

/** The documented defaults: 1,000 MAU, 100 MiB of tables and 1 GiB of objects free; then 0.02 / 0.25 / 0.03 USD. */
export const DEFAULT_BILLING_PRICES: BillingPrices = {
  mauUnits: 200,
  mauFree: 1_000,
  tableGibUnits: 2_500,
  tableFreeBytes: 100 * 1024 * 1024,
  objectGibUnits: 300,
  objectFreeBytes: 1024 * 1024 * 1024,
};

const PRICE_KEYS: Record<string, keyof BillingPrices> = {
  mau: 'mauUnits',
  table_gib: 'tableGibUnits',
  object_gib: 'objectGibUnits',
};
const COUNT_KEYS: Record<string, keyof BillingPrices> = {
  mau_free: 'mauFree',
  table_free_bytes: 'tableFreeBytes',
  object_free_bytes: 'objectFreeBytes',
};

/** `BILLING_CHAINS=ethereum,bitcoin`: lower-case names the provider knows. */
export function parseBillingChains(raw: string | undefined): string[] {
  if (raw === undefined) return [...DEFAULT_BILLING_CHAINS];
  const chains = [...new Set(raw.split(',').map((c) => c.trim().toLowerCase()).filter(Boolean))];
  if (!chains.length) throw new Error('must name at least one chain');
  const bad = chains.find((c) => !/^[a-z0-9_-]{1,32}$/.test(c));
  if (bad) throw new Error(`"${bad}" is not a chain name (1-32 of a-z, 0-9, _ and -)`);
  return chains;
}

/**
 * `BILLING_PRICES=mau=0.02,mau_free=1000,table_gib=0.25,table_free_bytes=104857600,object_gib=0.03,object_free_bytes=1073741824`:
 * any subset; the rest keep their defaults. Prices are USD with at most 4 decimals; allowances whole numbers.
 */
export function parseBillingPrices(raw: string | undefined): BillingPrices {
  const prices = { ...DEFAULT_BILLING_PRICES };
  if (raw === undefined) return prices;
  for (const part of raw.split(',').map((p) => p.trim()).filter(Boolean)) {
    const match = /^([a-z_]+)=(.+)$/.exec(part);
    if (!match) throw new Error(`"${part}" is not key=value`);
    const [, key, value] = match;
    if (PRICE_KEYS[key]) {
      if (!/^\d{1,7}(\.\d{1,4})?$/.test(value)) throw new Error(`${key} must be a USD price with at most 4 decimals, got "${value}"`);
      prices[PRICE_KEYS[key]] = Math.round(Number(value) * 10_000);
    } else if (COUNT_KEYS[key]) {
      if (!/^\d{1,15}$/.test(value)) throw new Error(`${key} must be a whole number, got "${value}"`);
      prices[COUNT_KEYS[key]] = Number(value);
    } else {
      throw new Error(`unknown key "${key}" (known: ${[...Object.keys(PRICE_KEYS), ...Object.keys(COUNT_KEYS)].join(', ')})`);
    }
  }
  return prices;
}
