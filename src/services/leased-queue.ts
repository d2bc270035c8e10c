import { hostname } from 'node:os';
import { addSeconds, iso } from '../clock.js';
import { newUuid } from '../crypto/ids.js';
import type { Deps } from '../deps.js';
import type { Db } from '../store/db.js';
import { supportsSkipLocked } from '../store/dialect.js';
import type { LeaseClaim } from '../store/repos/leases.js';
import { inTransaction } from '../store/transaction.js';

// The claim loop of a queue in a table that nodes share (the mail outbox, webhook deliveries): due rows are
// leased to one node at a time, each row's work runs in flight until it settles, and a stop lets that work
// finish for a while, then cuts it so its rows are released for the next node.

/** After SIGTERM, how long work in flight may still finish; the rest is cut and its rows released. */
export const STOP_WAIT_MS = 2_000;

/** Why a row's work was cut by stop(): its row is released, not counted as a failed attempt. */
export class ShuttingDown extends Error {}


export interface LeasedQueueSpec<Row> {
  /** The warning logged (once a minute at most) while claims fail: the database cannot be reached. */
  outage: string;
  /** How much work may be in flight at once. */
  concurrency: () => number;
  /** How long a claimed row stays this node's: longer than its work may take. */
  leaseSeconds: number;
  /** Whether any row is due (a cheap read before the claiming transaction). */
  anyDue: (db: Db, now: string) => Promise<boolean>;
  /** Leases up to `claim.limit` due rows, inside a transaction. */
  claimDue: (trx: Db, claim: LeaseClaim) => Promise<Row[]>;
  /** Starts the work of the claimed rows, each through `start`, which keeps it in flight under its controller. */
  run: (rows: Row[], start: (work: (abort: AbortController) => Promise<void>) => void) => Promise<void> | void;
}

type QueueDeps = Pick<Deps, 'db' | 'store' | 'clock' | 'log'>;

async function within(work: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([work, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}

export class LeasedQueue<Row> {
  readonly holder = `${hostname()}:${process.pid}:${newUuid()}`;
  /** Each row's work in flight with the controller that cuts it. */
  private readonly inFlight = new Map<Promise<void>, AbortController>();
  /** A claim is running; a call meanwhile sets `again`, and the running claim goes round once more. */
  private claiming = false;
  private again = false;
  private stopped = false;
  private lastClaimError = 0;
  private poll: NodeJS.Timeout | undefined;

  constructor(
    private readonly deps: QueueDeps,
    private readonly spec: LeasedQueueSpec<Row>,
  ) {}

  /** Claims every `pollMs` and once now. */
  start(pollMs: number): void {
    this.poll = setInterval(() => void this.claim(), pollMs);
    this.poll.unref();
    void this.claim();
  }

  /**
   * Stops claiming, runs `closing` (what the worker shuts besides), lets the work in flight finish for at
   * most STOP_WAIT_MS (and `waitMs`), then cuts the rest (ShuttingDown) and waits for their rows' release
   * until `waitMs` is over.
   */
  async stop(waitMs: number, closing: () => Promise<void> | void = () => {}): Promise<void> {
    const deadline = Date.now() + waitMs;
    this.stopped = true;
    clearInterval(this.poll);
    await closing();
    const settled = () => Promise.allSettled([...this.inFlight.keys()]);
    await within(settled(), Math.min(STOP_WAIT_MS, waitMs));
    for (const abort of this.inFlight.values()) abort.abort(new ShuttingDown('shutting down'));
    // The cut work releases its rows (one short write each) while the database is still open.
    await within(settled(), Math.max(0, deadline - Date.now()));
  }

  /** Claims due rows while there is room and rows come, one loop at a time. */
  async claim(): Promise<void> {
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = true;
    try {
      do {
        this.again = false;
        const room = this.spec.concurrency() - this.inFlight.size;
        if (this.stopped || room <= 0) break;
        const rows = await this.claimRows(room);
        if (rows.length === 0) break;
        await this.spec.run(rows, (work) => this.track(work));
        if (rows.length === room) this.again = true;
      } while (this.again && !this.stopped);
    } catch (error) {
      // A database outage: say so once a minute, keep polling.
      if (Date.now() - this.lastClaimError > 60_000) {
        this.lastClaimError = Date.now();
        this.deps.log.warn({ error: (error as Error).message }, this.spec.outage);
      }
    } finally {
      this.claiming = false;
    }
  }

  /** Up to `room` due rows, leased to this node. */
  private async claimRows(room: number): Promise<Row[]> {
    const now = this.deps.clock.now();
    if (!(await this.spec.anyDue(this.deps.db, iso(now)))) return [];
    return inTransaction(this.deps.db, (trx) =>
      this.spec.claimDue(trx, {
        holder: this.holder,
        now: iso(now),
        leaseUntil: iso(addSeconds(now, this.spec.leaseSeconds)),
        limit: room,
        skipLocked: supportsSkipLocked(this.deps.store.dialect),
      }),
    );
  }

  /** Keeps a row's work in flight until it settles; its end makes room for another claim. */
  private track(work: (abort: AbortController) => Promise<void>): void {
    const abort = new AbortController();
    const running = work(abort).finally(() => {
      this.inFlight.delete(running);
      if (!this.stopped) void this.claim();
    });
    this.inFlight.set(running, abort);
  }
}
