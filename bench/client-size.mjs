#!/usr/bin/env node
// `node bench/client-size.mjs` (after `npm run build`): the size of @gatehouse/client as a browser app ships
// it, bundled and minified by Rolldown for the browser (the package's `browser` import conditions), then
// gzipped (level 9) and brotli'd. The proof-of-work worker (and hash-wasm, its one dependency) is a
// separate file the page loads only to sign up: it is measured on its own line, not in the client's.
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const dist = fileURLToPath(new URL('../packages/client/dist/', import.meta.url));

async function measure(entry) {
  const result = await build({ input: dist + entry, platform: 'browser', write: false, output: { format: 'esm', minify: true }, logLevel: 'silent' });
  const code = Buffer.concat(result.output.filter((chunk) => chunk.type === 'chunk').map((chunk) => Buffer.from(chunk.code)));
  return {
    minified: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
  };
}

const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
console.log('| file | minified | gzip -9 | brotli 11 |\n| --- | --- | --- | --- |');
for (const [name, entry] of [['@gatehouse/client (index.js and everything it imports)', 'index.js'], ['proof-of-work worker (pow-worker.js + hash-wasm argon2id)', 'pow-worker.js']]) {
  const size = await measure(entry);
  console.log(`| ${name} | ${kb(size.minified)} | ${kb(size.gzip)} | ${kb(size.brotli)} |`);
}
