#!/usr/bin/env node
// `node bench/client-size.mjs` (after `npm run build`): the size of @gatehouse/client as a browser app ships
// it, bundled and minified by Rolldown for the browser (the package's `browser` import conditions), then
// gzipped (level 9) and brotli'd. The proof-of-work worker (and hash-wasm, its one dependency) is a
// separate file the page loads only to sign up: it is measured on its own line, not in the client's; so is
// the chunk the client imports on its first passkey call (@simplewebauthn/browser).
import { brotliCompressSync, gzipSync, constants } from 'node:zlib';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const dist = fileURLToPath(new URL('../packages/client/dist/', import.meta.url));

/** The entry's bundle: what loads with it (its static imports) and what it loads later (dynamic imports). */
async function measure(entry) {
  const result = await build({ input: dist + entry, platform: 'browser', write: false, output: { format: 'esm', minify: true }, logLevel: 'silent' });
  const chunks = result.output.filter((chunk) => chunk.type === 'chunk');
  const size = (list) => {
    const code = Buffer.concat(list.map((chunk) => Buffer.from(chunk.code)));
    return {
      minified: code.length,
      gzip: gzipSync(code, { level: 9 }).length,
      brotli: brotliCompressSync(code, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }).length,
    };
  };
  const lazy = chunks.filter((chunk) => !chunk.isEntry);
  return { eager: size(chunks.filter((chunk) => chunk.isEntry)), lazy: lazy.length ? size(lazy) : undefined };
}

const kb = (n) => `${(n / 1024).toFixed(1)} kB`;
console.log('| file | minified | gzip -9 | brotli 11 |\n| --- | --- | --- | --- |');
const rows = [
  ['@gatehouse/client (index.js and everything it imports)', 'index.js', 'passkeys only: @simplewebauthn/browser, imported on the first passkey call'],
  ['proof-of-work worker (pow-worker.js + hash-wasm argon2id)', 'pow-worker.js'],
];
for (const [name, entry, lazyName] of rows) {
  const { eager, lazy } = await measure(entry);
  for (const [label, size] of [[name, eager], [lazyName, lazy]]) {
    if (size) console.log(`| ${label} | ${kb(size.minified)} | ${kb(size.gzip)} | ${kb(size.brotli)} |`);
  }
}
