// The proof-of-work search in a Node worker thread (pow-node.ts starts it).
import hashwasm from 'hash-wasm';
import { parentPort, workerData } from 'node:worker_threads';
import { search, type Argon2id } from './pow-search.js';

search(hashwasm.argon2id as Argon2id, workerData).then(
  (proof) => parentPort!.postMessage({ proof }),
  (error: unknown) => parentPort!.postMessage({ error: String(error) }),
);
