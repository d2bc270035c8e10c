/** What a blob call that ran out of BLOB_TIMEOUT_MS fails with: the store's fault, answered 503. */
export class BlobTimeoutError extends Error {
  override readonly name = 'TimeoutError';
  constructor(what: string, ms: number) {
    super(`the object store did not ${what} within ${ms} ms (BLOB_TIMEOUT_MS)`);
  }
}

/**
 * `work` or a BlobTimeoutError after `ms`, whichever comes first; `signal` is aborted at the deadline so
 * a call that takes one stops its request instead of running on. `late` receives what `work` gives after
 * the deadline (an opened file to close).
 */
export async function withBlobDeadline<T>(what: string, ms: number, work: (signal: AbortSignal) => Promise<T>, late?: (value: T) => void): Promise<T> {
  const abort = new AbortController();
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const error = new BlobTimeoutError(what, ms);
      abort.abort(error);
      reject(error);
    }, ms);
  });
  const running = work(abort.signal);
  running.then(
    (value) => abort.signal.aborted && late?.(value),
    () => {},
  );
  try {
    return await Promise.race([running, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
