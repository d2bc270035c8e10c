#!/usr/bin/env node
// Builds the console (docs/console.md) into dist/console/: console/src/main.tsx (Preact, TSX) and the
// proof-of-work worker of @gatehouse/client bundled by Rolldown, minified, under content-hashed names in
// assets/; style.css copied under its hash; index.html naming them (no inline script: the CSP forbids it);
// manifest.json, the list of assets the service serves (src/http/routes/console-ui.ts). Run by `npm run build`
// after the client's build (packages/client/dist). Nothing is fetched at run time.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'rolldown';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, '..');
const OUT = join(ROOT, 'dist/console');
const ASSETS = join(OUT, 'assets');

// Two builds: the page, and the worker on its own (a shared chunk would keep all of hash-wasm in it).
const bundle = (input) =>
  build({
    input,
    platform: 'browser',
    write: false,
    logLevel: 'warn',
    // JSX as console/tsconfig.json says: the automatic runtime of Preact.
    tsconfig: join(HERE, 'tsconfig.json'),
    output: { format: 'esm', minify: true, entryFileNames: '[name]-[hash].js', chunkFileNames: '[name]-[hash].js' },
  });
const output = [
  ...(await bundle({ main: join(HERE, 'src/main.tsx') })).output,
  ...(await bundle({ 'pow-worker': join(ROOT, 'packages/client/dist/pow-worker.js') })).output,
];

rmSync(OUT, { recursive: true, force: true });
mkdirSync(ASSETS, { recursive: true });
const assets = [];
let main;
let worker;
for (const chunk of output) {
  const text = chunk.type === 'chunk' ? chunk.code : chunk.source;
  writeFileSync(join(ASSETS, chunk.fileName), text);
  assets.push(chunk.fileName);
  if (chunk.type === 'chunk' && chunk.isEntry && chunk.name === 'main') main = chunk.fileName;
  if (chunk.type === 'chunk' && chunk.isEntry && chunk.name === 'pow-worker') worker = chunk.fileName;
}
const css = readFileSync(join(HERE, 'src/style.css'));
const cssName = `style-${createHash('sha256').update(css).digest('hex').slice(0, 10)}.css`;
writeFileSync(join(ASSETS, cssName), css);
assets.push(cssName);

const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Gatehouse console</title>
<link rel="stylesheet" href="/console/assets/${cssName}">
<script type="module" src="/console/assets/${main}"></script>
</head>
<body data-pow-worker="/console/assets/${worker}">
<div id="app"><main><p class="loading">Loading the console…</p></main></div>
<noscript>The console needs JavaScript.</noscript>
</body>
</html>
`;
writeFileSync(join(OUT, 'index.html'), html);
writeFileSync(join(OUT, 'manifest.json'), JSON.stringify({ assets: assets.sort() }, null, 2) + '\n');
const bytes = assets.reduce((sum, name) => sum + readFileSync(join(ASSETS, name)).length, 0);
console.log(`console: ${assets.length} assets, ${(bytes / 1024).toFixed(1)} kB into dist/console/`);
