// solveChallenge in a browser: a module Web Worker (pow-worker.js beside this file, or `workerUrl`).
import type { Proof } from './pow-search.js';
import type { Challenge } from './types.js';

/** Solves a challenge of POST /v1/challenges off the main thread. */
export function solveChallenge(challenge: Challenge, workerUrl?: string | URL): Promise<Proof> {
  const worker = new Worker(workerUrl ?? new URL('./pow-worker.js', import.meta.url), { type: 'module' });
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => {
      worker.terminate();
      if (data.error) reject(new Error(data.error));
      else resolve(data.proof as Proof);
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(event.message || 'the proof-of-work worker failed to start'));
    };
    worker.postMessage({ challenge: challenge.challenge, difficulty: challenge.difficulty, params: challenge.params });
  });
}
