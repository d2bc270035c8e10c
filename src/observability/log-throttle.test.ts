import { describe, expect, it } from 'vitest';
import { LogThrottle } from './log-throttle.js';

describe('LogThrottle', () => {
  it('admits one line per key per interval and reports how many it left out', () => {
    const throttle = new LogThrottle(10_000);
    expect(throttle.admit('a', 0)).toBe(0);
    expect(throttle.admit('a', 1_000)).toBeUndefined();
    expect(throttle.admit('a', 9_999)).toBeUndefined();
    expect(throttle.admit('b', 9_999)).toBe(0);
    expect(throttle.admit('a', 10_000)).toBe(2);
    expect(throttle.admit('a', 10_001)).toBeUndefined();
  });
});
