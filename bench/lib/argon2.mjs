// The cost of one bare argon2id verification at the server's own parameters (read from the build, so
// the two cannot drift apart): the floor under password sign-in, which does one such verify per request.
import { hash, verify } from '@node-rs/argon2';
import { PASSWORD_PARAMS } from '../../dist/src/crypto/passwords.js';
import { BENCH_PASSWORD } from './fixtures.mjs';

/** Runs `workers` verify loops side by side for `seconds`; returns completed verifies and elapsed ms. */
async function verifyLoops(encoded, workers, seconds) {
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  let done = 0;
  const loop = async () => {
    while (performance.now() < deadline) {
      if (!(await verify(encoded, BENCH_PASSWORD))) throw new Error('argon2 verify returned false');
      done += 1;
    }
  };
  await Promise.all(Array.from({ length: workers }, loop));
  return { done, ms: performance.now() - started };
}

/**
 * @param {number} seconds how long each measurement runs
 * @param {number[]} concurrencies verify loops side by side, e.g. [1, 2, 4]
 */
export async function measureArgon2(seconds, concurrencies) {
  const encoded = await hash(BENCH_PASSWORD, PASSWORD_PARAMS);
  await verifyLoops(encoded, 1, 0.5); // warm-up: thread pool, allocator
  const rows = [];
  for (const concurrency of concurrencies) {
    const { done, ms } = await verifyLoops(encoded, concurrency, seconds);
    rows.push({ concurrency, opsPerSecond: (done * 1000) / ms, msPerOp: (ms * concurrency) / done, count: done });
  }
  const params = `m=${PASSWORD_PARAMS.memoryCost}, t=${PASSWORD_PARAMS.timeCost}, p=${PASSWORD_PARAMS.parallelism}`;
  return { params, encodedPrefix: encoded.split('$').slice(0, 4).join('$'), rows };
}
