// solveChallenge in a browser: a module Web Worker (pow-worker.js beside this file, or `workerUrl`); where
// no bundler shipped that file, the same worker from a Blob URL; where no worker may start at all (a CSP
// without `worker-src blob:`), the page's own thread.
import type { Argon2id, Proof } from './pow-search.js';
import type { Challenge } from './types.js';

type Message = { challenge: string; difficulty: number; params: Challenge['params'] };

/**
 * The worker, written as `new Worker(new URL('./pow-worker.js', import.meta.url), { type: 'module' })`
 * exactly: the one form Vite, webpack 5, Rolldown and Parcel recognise and bundle as a worker with its
 * dependency (any other expression, even `url ?? new URL(...)`, is left as a plain asset and fails to load).
 */
function bundledWorker(workerUrl: string | URL | undefined): Worker {
  if (workerUrl) return new Worker(workerUrl, { type: 'module' });
  return new Worker(new URL('./pow-worker.js', import.meta.url), { type: 'module' });
}

/** The worker from its self-contained script (dist/pow-worker-source.js, loaded only on this path). */
async function blobWorker(): Promise<Worker> {
  const { default: source } = await import('./pow-worker-source.js');
  if (!source) throw new Error('the bundled worker script was not built');
  const url = URL.createObjectURL(new Blob([source], { type: 'text/javascript' }));
  try {
    return new Worker(url);
  } finally {
    // The worker has fetched its script by the time it runs; revoking later would keep the Blob alive.
    setTimeout(() => URL.revokeObjectURL(url), 60_000);
  }
}

/** In a worker; rejects with `started: false` when the worker never ran (not found, a CSP, no bundling). */
function inWorker(message: Message, start: () => Worker | Promise<Worker>): Promise<Proof> {
  return new Promise(async (resolve, reject) => {
    let worker: Worker;
    try {
      worker = await start();
    } catch (error) {
      return reject(Object.assign(new Error(String(error)), { started: false }));
    }
    worker.onmessage = ({ data }) => {
      worker.terminate();
      if (data.error) reject(new Error(data.error));
      else resolve(data.proof as Proof);
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(Object.assign(new Error(event.message || 'the proof-of-work worker failed to start'), { started: false }));
    };
    worker.postMessage(message);
  });
}

/**
 * Solves a challenge of POST /v1/challenges off the main thread: in the bundled worker; where the bundler
 * shipped none (esbuild and Rolldown bundle no workers), in the same worker from a Blob URL; where a CSP
 * refuses both, on the page's thread (the same argon2id, the page busy for as long) with a console warning
 * that says how to keep it off the page (`powWorkerUrl`). A `workerUrl` the caller gave is never second-guessed.
 */
export async function solveChallenge(challenge: Challenge, workerUrl?: string | URL): Promise<Proof> {
  const message = { challenge: challenge.challenge, difficulty: challenge.difficulty, params: challenge.params };
  const notStarted = (error: unknown) => (error as { started?: boolean }).started === false;
  try {
    return await inWorker(message, () => bundledWorker(workerUrl));
  } catch (error) {
    if (workerUrl || !notStarted(error)) throw error;
  }
  try {
    return await inWorker(message, blobWorker);
  } catch (error) {
    if (!notStarted(error)) throw error;
    console.warn(
      `@gatehouse/client: the proof-of-work worker did not start (${(error as Error).message}); solving on the page's main thread. ` +
        "To keep it off the page, serve @gatehouse/client's pow-worker.js bundled and pass its URL as createClient({ powWorkerUrl }).",
    );
    const [{ argon2id }, { search }] = await Promise.all([import('hash-wasm'), import('./pow-search.js')]);
    return search(argon2id as Argon2id, message);
  }
}
