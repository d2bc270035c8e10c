// solveChallenge in Node: a worker thread, so a server signing users up keeps serving meanwhile.
import { Worker } from 'node:worker_threads';
import type { Proof } from './pow-search.js';
import type { Challenge } from './types.js';

/** Solves a challenge of POST /v1/challenges in a worker thread. */
export function solveChallenge(challenge: Challenge, workerUrl?: string | URL): Promise<Proof> {
  const worker = new Worker(workerUrl ?? new URL('./pow-node-worker.js', import.meta.url), {
    workerData: { challenge: challenge.challenge, difficulty: challenge.difficulty, params: challenge.params },
  });
  return new Promise((resolve, reject) => {
    worker.once('message', (data: { proof?: Proof; error?: string }) => {
      void worker.terminate();
      if (data.proof) resolve(data.proof);
      else reject(new Error(data.error));
    });
    worker.once('error', reject);
  });
}
