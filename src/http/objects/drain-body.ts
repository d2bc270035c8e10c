import type { IncomingMessage } from 'node:http';

/** How much of a refused upload's body is read before the answer, at most. */
export const DRAIN_MAX_BYTES = 8 * 1024 * 1024;
export const DRAIN_MAX_MS = 2_000;

/**
 * Reads and discards what is left of a request's body, until it ends or DRAIN_MAX_BYTES or DRAIN_MAX_MS
 * pass. An upload refused while its client is still sending (a cap, a blob store that failed) is answered
 * on a connection that then closes: closing a socket with unread bytes makes the kernel send a reset,
 * which can reach the client before it has read the answer (it saw a broken pipe or a reset instead of
 * the 503, 9 % of the time). A body read to its end leaves nothing unread; a larger one is cut after the
 * bounds, as before.
 */
export function drainBody(body: IncomingMessage, limits = { maxBytes: DRAIN_MAX_BYTES, maxMs: DRAIN_MAX_MS }): Promise<void> {
  if (body.complete || body.destroyed) return Promise.resolve();
  return new Promise((resolve) => {
    let seen = 0;
    const done = () => {
      clearTimeout(timer);
      body.off('data', onData);
      body.off('end', done);
      body.off('close', done);
      body.off('error', done);
      resolve();
    };
    const onData = (chunk: Buffer) => {
      seen += chunk.length;
      if (seen > limits.maxBytes) done();
    };
    const timer = setTimeout(done, limits.maxMs);
    // Whatever still reads the body (a failed write's stream) lets go of it first.
    body.unpipe();
    body.on('data', onData);
    body.once('end', done);
    body.once('close', done);
    body.once('error', done);
    body.resume();
  });
}
