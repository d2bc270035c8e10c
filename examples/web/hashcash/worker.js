// Hashcash solver Web Worker (contract.md section 3): finds a nonce whose argon2id proof hash has at least
// `difficulty` leading zero bits, off the page's main thread. A classic worker: it loads hash-wasm's
// argon2 build (dist/argon2.umd.min.js, 32 KB, which defines `hashwasm`) from beside this file.
// Copy hashcash/ and that file into your own front-end; nothing else is needed.
/* global hashwasm */
importScripts(new URL('argon2.umd.min.js', self.location.href).href);

const encoder = new TextEncoder();

function leadingZeroBits(bytes) {
  let bits = 0;
  for (const byte of bytes) {
    if (byte !== 0) return bits + Math.clz32(byte) - 24;
    bits += 8;
  }
  return bits;
}

self.onmessage = async ({ data }) => {
  const { challenge, difficulty, params } = data;
  try {
    for (let counter = 0; ; counter++) {
      const nonce = String(counter);
      const hash = await hashwasm.argon2id({
        password: encoder.encode(`${challenge}:${nonce}`),
        salt: encoder.encode(challenge),
        iterations: params.time_cost,
        memorySize: params.memory_cost,
        parallelism: params.parallelism,
        hashLength: params.hash_len,
        outputType: 'binary',
      });
      if (leadingZeroBits(hash) >= difficulty) {
        self.postMessage({ nonce, hashes: counter + 1 });
        return;
      }
    }
  } catch (error) {
    self.postMessage({ error: String(error) });
  }
};
