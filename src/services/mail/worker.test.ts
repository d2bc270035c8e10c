import { describe, expect, it } from 'vitest';
import { retryDelaySeconds } from './worker.js';

describe('mail outbox retries', () => {
  it('double from 2 s and stop growing at 5 minutes', () => {
    expect([1, 2, 3, 4].map(retryDelaySeconds)).toEqual([2, 4, 8, 16]);
    expect(retryDelaySeconds(9)).toBe(300);
    expect(retryDelaySeconds(50)).toBe(300);
  });
});
