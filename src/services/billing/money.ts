import { badRequest } from '../../errors.js';

// Money is integer cents inside; the API speaks USD numbers with at most 2 decimals.

/** The largest single top-up or manual adjustment, in USD. */
export const MAX_AMOUNT_USD = 100_000;

export const centsToUsd = (cents: number): number => cents / 100;

/**
 * Cents of a USD amount sent by a client: a finite JSON number with at most 2 decimals, with `sign`
 * 'positive' (top-ups: > 0) or 'any' (manual adjustments: non-zero, either sign), at most MAX_AMOUNT_USD.
 * Anything else, strings included, is 400.
 */
export function parseUsd(value: unknown, field: string, sign: 'positive' | 'any'): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw badRequest(`${field} must be a number of USD`);
  // 1.005 is not 1.01: compare with the number's own 2-decimal spelling instead of rounding it.
  if (Number(value.toFixed(2)) !== value) throw badRequest(`${field} must have at most 2 decimals`);
  const cents = Math.round(value * 100);
  if (sign === 'positive' && cents <= 0) throw badRequest(`${field} must be greater than 0`);
  if (cents === 0) throw badRequest(`${field} must not be 0`);
  if (Math.abs(cents) > MAX_AMOUNT_USD * 100) throw badRequest(`${field} must be at most ${MAX_AMOUNT_USD} USD`);
  return cents;
}
