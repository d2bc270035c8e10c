// Standard output in batches of whole lines (the process logger's destination).
import { EventEmitter } from 'node:events';
import { closeSync, writeSync } from 'node:fs';

/** How long a log line may wait in the buffer when traffic is too light to fill a write. */
export const LOG_FLUSH_MS = 200;

/**
 * The most one write carries when several processes share standard output (`serve --workers N`):
 * PIPE_BUF, so their writes to one pipe never interleave.
 */
export const SHARED_BATCH_BYTES = 4096;
/**
 * The most one write carries when the process writes standard output alone: one system call per about
 * 250 request lines instead of 16 (each write costs several microseconds on a virtual machine,
 * bench/README.md).
 */
export const OWN_BATCH_BYTES = 64 * 1024;
/** How long a write waits before trying again when the reader has not drained the pipe (EAGAIN). */
const BUSY_WAIT_MS = 10;
const sleeper = new Int32Array(new SharedArrayBuffer(4));

/**
 * Standard output in batches: lines are queued and written in batches of whole lines, at most
 * PIPE_BUF = 4096 bytes per write when several workers share the output (so their lines never interleave
 * on a pipe), 64 KiB when the process writes it alone; whatever is queued is written at least every
 * LOG_FLUSH_MS and when the process exits.
 *
 * The writes are synchronous, so the queue never holds more than one batch. Asynchronous writes (libuv's
 * thread pool, one batch in flight) finish one batch per turn of the event loop, and a loaded turn logs
 * more than that: under a sustained /v1/health load half the lines were still queued when the load
 * stopped, and the queue grew the heap by about 8 MB a second without bound (bench/README.md, "Memory
 * under load"). A batched write is one system call per 16 lines or more, cheaper than a thread-pool round trip;
 * a reader that cannot keep up slows the server instead of filling its memory.
 *
 * Written here rather than with pino.destination (sonic-boom), which does the same in sync mode but
 * measures the UTF-8 length of the whole pending batch on every line: it flattens and scans up to 4 KB per
 * line (about 4 % of a /v1/health request's CPU, bench/README.md). Here each line is encoded once into the
 * batch's buffer, and only a line that may not fit is measured.
 * A reader that has not drained the pipe (EAGAIN) is waited for, as sonic-boom does; any other write error
 * (the reader is gone, the disk is full) drops the batch rather than stopping the service.
 */
export class BatchedLines extends EventEmitter {
  /** The batch, encoded as lines come: no array of lines, no join, no second encoding when written. */
  private readonly batch: Buffer;
  private used = 0;
  private readonly timer: NodeJS.Timeout;
  /** A batch this full is written at once rather than waiting for another line. */
  private readonly full: number;

  constructor(
    private readonly fd: number,
    private readonly batchBytes = SHARED_BATCH_BYTES,
  ) {
    super();
    this.batch = Buffer.allocUnsafe(batchBytes);
    this.full = batchBytes - 96;
    this.timer = setInterval(() => this.flushSync(), LOG_FLUSH_MS).unref();
  }

  write(line: string): boolean {
    // A UTF-16 code unit is at most 3 bytes of UTF-8: only a line that may not fit is measured. Room is
    // measured again after a flush (a 'write' listener may have logged during it).
    for (let room = this.batchBytes - this.used; line.length * 3 > room; room = this.batchBytes - this.used) {
      const size = Buffer.byteLength(line);
      if (size <= room) break;
      this.flushSync();
      // Longer than a whole batch: written alone.
      if (size > this.batchBytes) return (this.writeAll(Buffer.from(line)), true);
    }
    this.used += this.batch.write(line, this.used);
    if (this.used >= this.full) this.flushSync();
    return true;
  }

  /** Writes whatever is queued, now, in one write. */
  flushSync(): void {
    if (this.used === 0) return;
    const size = this.used;
    this.used = 0;
    this.writeAll(this.batch.subarray(0, size));
  }

  /** pino's logger.flush(). */
  flush(done?: (error?: Error) => void): void {
    this.flushSync();
    done?.();
  }

  /** Stops the timer and closes the descriptor (not standard output or error). */
  destroy(): void {
    this.flushSync();
    clearInterval(this.timer);
    if (this.fd > 2) closeSync(this.fd);
  }

  end(): void {
    this.destroy();
  }

  /**
   * Writes the bytes, waiting out EAGAIN. The 'write' events (each system call's byte count) are emitted
   * only once the bytes are out: a listener that logs then writes into a batch no write is still reading.
   */
  private writeAll(bytes: Buffer): void {
    const writes: number[] = [];
    let data = bytes;
    for (;;) {
      try {
        const written = writeSync(this.fd, data);
        if (written > 0) writes.push(written);
        // All written; or nothing could be (a descriptor that takes no bytes): the batch is dropped.
        if (written >= data.length || written === 0) break;
        data = data.subarray(written);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') break;
        Atomics.wait(sleeper, 0, 0, BUSY_WAIT_MS);
      }
    }
    for (const written of writes) this.emit('write', written);
  }
}

export function batchedStdout(fd = 1, batchBytes = SHARED_BATCH_BYTES): BatchedLines {
  const stream = new BatchedLines(fd, batchBytes);
  // Lines still queued when the process exits.
  process.once('exit', () => stream.flushSync());
  return stream;
}
