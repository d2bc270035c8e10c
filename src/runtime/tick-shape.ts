import { executionAsyncResource } from 'node:async_hooks';

/**
 * The objects `process.nextTick` queues (Node's internal TickObjects), held for the life of the process.
 *
 * Node builds each one with an object literal whose first keys are computed (its async-id symbols), and V8
 * keeps the hidden classes that literal walks through only while some object still uses them. A server
 * that idles has no TickObject alive when V8's memory reducer runs its memory-reducing full collections
 * (20-30 s after start, and after every busy spell), so those hidden classes die; every `nextTick` after
 * that, several per request, takes a slow path for good. Measured on GET /v1/health: `nextTick`'s own
 * time rose from 0.3 % to 1.4-1.8 % of all samples and the server's CPU per request by 10-15 %, for as
 * long as the process lives (bench/README.md, "An idle server's nextTick"). One TickObject held here
 * keeps them alive; it costs a few hundred bytes.
 */
const held: object[] = [];

/** Holds a TickObject with arguments and one without (the two forms `nextTick` makes); resolves once both are held. */
export function holdTickObjectShape(): Promise<void> {
  return new Promise((resolve) => {
    process.nextTick(() => held.push(executionAsyncResource()));
    process.nextTick((done: () => void) => {
      held.push(executionAsyncResource());
      done();
    }, resolve);
  });
}

/** What is held (for the test that checks it is Node's TickObject). */
export function heldTickObjects(): readonly object[] {
  return held;
}
