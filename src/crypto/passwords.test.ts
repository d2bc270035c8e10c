import { describe, expect, it } from 'vitest';
import { hashPassword, limitConcurrency, passwordHashSlots, threadPoolSizeFrom, verifyPassword } from './passwords.js';

describe('password hashing concurrency (issue 14)', () => {
  it('runs at most `slots` tasks at once, every task once, a failure freeing its slot', async () => {
    const limit = limitConcurrency(2);
    let running = 0;
    let most = 0;
    const task = (i: number) =>
      limit(async () => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        if (i === 3) throw new Error('task 3 fails');
        return i;
      });
    const results = await Promise.allSettled(Array.from({ length: 10 }, (_, i) => task(i)));
    expect(most).toBe(2);
    expect(results.map((r) => (r.status === 'fulfilled' ? r.value : 'failed'))).toEqual([0, 1, 2, 'failed', 4, 5, 6, 7, 8, 9]);
    expect(await limit(async () => 'after')).toBe('after');
  });

  it('hands the pool one hash per thread, at most one per core, and one more to wait in its queue', () => {
    expect(passwordHashSlots(2, 2)).toBe(3);
    expect(passwordHashSlots(2, 4)).toBe(3);
    expect(passwordHashSlots(8, 4)).toBe(5);
    expect(passwordHashSlots(1, 2)).toBe(2);
  });

  it('reads UV_THREADPOOL_SIZE as libuv does, so the slots match the threads that run', () => {
    expect(threadPoolSizeFrom(undefined)).toBe(4);
    expect(threadPoolSizeFrom('2')).toBe(2);
    expect(threadPoolSizeFrom('6abc')).toBe(6);
    expect(threadPoolSizeFrom('2.5')).toBe(2);
    for (const none of ['', '0', 'abc']) expect(threadPoolSizeFrom(none)).toBe(1);
    expect(threadPoolSizeFrom('-1')).toBe(1024);
    expect(threadPoolSizeFrom('5000')).toBe(1024);
    // However the variable reads, at least one hash runs: a limit of 0 would queue every sign-in for good.
    expect(passwordHashSlots(2, threadPoolSizeFrom('-1'))).toBe(3);
    expect(passwordHashSlots(2, threadPoolSizeFrom('0'))).toBe(2);
  });

  it('hashes and verifies through the limit, concurrently', async () => {
    const hashes = await Promise.all(['one password', 'two password', 'three password'].map((p) => hashPassword(p)));
    const checks = await Promise.all([verifyPassword(hashes[0], 'one password'), verifyPassword(hashes[1], 'wrong'), verifyPassword(hashes[2], 'three password')]);
    expect(checks).toEqual([true, false, true]);
  });
});
