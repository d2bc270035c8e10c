// solve(answer): the `hashcash` object a sign-up sends, from the answer of POST /v1/challenges.
// The work runs in a Web Worker (worker.js beside this file), so the page stays responsive; about 64
// argon2id hashes at the default difficulty 6, a second or two.

/**
 * @param {{challenge: string, difficulty: number, params: {time_cost: number, memory_cost: number, parallelism: number, hash_len: number}}} answer
 * @returns {Promise<{challenge: string, nonce: string, hashes: number, ms: number}>}
 */
export function solve(answer) {
  const worker = new Worker(new URL('./worker.js', import.meta.url));
  const started = performance.now();
  return new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => {
      worker.terminate();
      if (data.error) reject(new Error(data.error));
      else resolve({ challenge: answer.challenge, nonce: data.nonce, hashes: data.hashes, ms: Math.round(performance.now() - started) });
    };
    worker.onerror = (event) => {
      worker.terminate();
      reject(new Error(event.message || 'hashcash worker failed'));
    };
    worker.postMessage({ challenge: answer.challenge, difficulty: answer.difficulty, params: answer.params });
  });
}
