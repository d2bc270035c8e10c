// The browser's proof-of-work Web Worker (a module worker): hash-wasm's argon2id in WebAssembly, off the
// page's main thread. Bundlers that understand `new Worker(new URL(..., import.meta.url))` ship it with
// its one dependency; without a bundler, point `powWorkerUrl` at a bundled copy.
import { argon2id } from 'hash-wasm';
import { search, type Argon2id } from './pow-search.js';

const scope = self as unknown as { onmessage: ((event: MessageEvent) => void) | null; postMessage(message: unknown): void };
scope.onmessage = async ({ data }) => {
  try {
    scope.postMessage({ proof: await search(argon2id as Argon2id, data) });
  } catch (error) {
    scope.postMessage({ error: String(error) });
  }
};
